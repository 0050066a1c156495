package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// authLog is a server's log of the credentials its sessions added.
type authLog struct {
	mu  sync.Mutex
	ids []string
}

func (l *authLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *authLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *authLog) WithGroup(string) slog.Handler            { return l }
func (l *authLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "credentials added" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "id" {
			l.mu.Lock()
			l.ids = append(l.ids, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

// seen returns the identities added so far and forgets them.
func (l *authLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := l.ids
	l.ids = nil
	return ids
}

// loggedServer starts an embedded server whose log records who
// authenticated.
func loggedServer(t *testing.T) (string, *authLog) {
	log := &authLog{}
	s := zktest.EmbeddedServer(t, zkserver.Config{Logger: slog.New(log)})
	return s.ConnectString(), log
}

// whoamiIDs runs zkx ARGS whoami -o json and returns the identities the
// server holds for the session, as scheme:user.
func whoamiIDs(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, err := run(t, append(args, "whoami", "-o", "json")...)
	if err != nil {
		t.Fatalf("zkx %s whoami: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	var who whoamiJSON
	if err := json.Unmarshal([]byte(out), &who); err != nil {
		t.Fatalf("whoami -o json: %v\n%s", err, out)
	}
	var ids []string
	for _, id := range who.Identities {
		if id.Scheme != "ip" {
			ids = append(ids, id.Scheme+":"+id.User)
		}
	}
	return ids
}

// TestCredentialsStayWithTheirEnsemble: $ZKX_AUTH goes only where no
// context is chosen, or to a context that names it (auth-env); a
// context without credentials presents none — chosen with --context,
// opened by the explorer's :ctx, or the other side of diff and mirror.
func TestCredentialsStayWithTheirEnsemble(t *testing.T) {
	prod, prodLog := loggedServer(t)
	staging, stagingLog := loggedServer(t)
	cfg := filepath.Join(t.TempDir(), "contexts.yaml")
	body := fmt.Sprintf("current-context: prod\ncontexts:\n  prod:\n    server: %s\n    auth-env: ZKX_AUTH\n  staging:\n    server: %s\n", prod, staging)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKX_AUTH", "digest:ops:secret")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no default contexts file

	if ids := whoamiIDs(t, "--config", cfg); !slices.Equal(ids, []string{"digest:ops"}) {
		t.Errorf("prod, whose context names $ZKX_AUTH: identities %v, want digest:ops", ids)
	}
	if ids := whoamiIDs(t, "--config", cfg, "--context", "staging"); len(ids) != 0 {
		t.Errorf("--context staging, which names no credentials, was given %v", ids)
	}
	if ids := whoamiIDs(t, "--server", staging); !slices.Equal(ids, []string{"digest:ops"}) {
		t.Errorf("no context at all: identities %v, want $ZKX_AUTH's digest:ops", ids)
	}
	stagingLog.seen()

	base := zktest.Path(t)
	populate(t, prod, map[string]int32{base: 0, base + "/a": 0})
	populate(t, staging, map[string]int32{base: 0})
	if _, errOut, err := run(t, "--config", cfg, "diff", "prod:"+base, "staging:"+base); exitCode(err) != diffDifferent {
		t.Fatalf("diff: exit %d: %v\n%s", exitCode(err), err, errOut)
	}
	if _, errOut, err := run(t, "--config", cfg, "mirror", "prod:"+base, "staging:"+base, "--yes"); err != nil {
		t.Fatalf("mirror: %v\n%s", err, errOut)
	}
	if ids := stagingLog.seen(); len(ids) != 0 {
		t.Errorf("diff and mirror from prod to staging presented %v to staging", ids)
	}
	if ids := prodLog.seen(); !slices.Contains(ids, "digest:ops") {
		t.Errorf("prod's side of diff and mirror presented %v, want its own digest:ops", ids)
	}

	g, err := resolved(t, "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := g.explorerContexts().Open(context.Background(), "staging")
	if err != nil {
		t.Fatal(err)
	}
	conn.Client.Close()
	if ids := stagingLog.seen(); len(ids) != 0 {
		t.Errorf(":ctx staging presented %v", ids)
	}
}
