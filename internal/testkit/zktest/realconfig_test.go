package zktest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRealWithRestrictedWhitelistAndAdminServer(t *testing.T) {
	t.Parallel()
	e := RealWith(t, RealOptions{FourLetterWords: []string{"conf"}, AdminServer: true})
	m := e.Members()[0]
	out, err := FourLetter(m.Addr(), "ruok", 10*time.Second)
	if err != nil || strings.TrimSpace(out) != "ruok is not executed because it is not in the whitelist." {
		t.Errorf("ruok: %q, %v; want a refusal", out, err)
	}
	if out, err := FourLetter(m.Addr(), "conf", 10*time.Second); err != nil || !strings.Contains(out, "clientPort=") {
		t.Errorf("conf (whitelisted): %q, %v", out, err)
	}
	if mode, err := m.Mode(); err != nil || mode != "standalone" {
		t.Errorf("srvr (always allowed): %q, %v", mode, err)
	}
	url := m.AdminURL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/commands") {
		t.Fatalf("AdminURL() = %q", url)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url + "/server_stats")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"server_state" : "standalone"`) {
		t.Errorf("server_stats: %s %s", resp.Status, body)
	}
}

func TestRealWithEnsembleDefaults(t *testing.T) {
	t.Parallel()
	e := RealWith(t, RealOptions{Nodes: 3})
	e.Leader(t)
	for _, m := range e.Members() {
		if m.AdminURL() != "" {
			t.Errorf("%v: AdminURL %q without AdminServer", m, m.AdminURL())
		}
		// The default whitelist is still "*".
		if err := ruok(m.Addr(), 10*time.Second); err != nil {
			t.Errorf("%v: %v", m, err)
		}
	}
}
