package introspect

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestAdminURLPasswordsNeverShown: AdminServer URLs may carry a
// password (http://user:password@host); whether the AdminServer answers,
// is down, is named twice or is not a URL at all, nothing Ask returns —
// the tables' line, the problems, the JSON — shows it.
func TestAdminURLPasswordsNeverShown(t *testing.T) {
	t.Parallel()
	const secret = "S3cretURL"
	srv := zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: []string{"srvr"}})
	_, port, _ := net.SplitHostPort(srv.ConnectString())
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/configuration") {
			fmt.Fprintf(w, `{"client_port":%s,"server_id":0,"command":"configuration","error":null}`, port)
			return
		}
		fmt.Fprint(w, `{"command":"other","error":"not served here"}`)
	}))
	t.Cleanup(admin.Close)
	closed := zktest.FreePort(t)
	withPassword := func(base string) string { return strings.Replace(base, "http://", "http://admin:"+secret+"@", 1) }
	urls := []string{
		withPassword(admin.URL + "/commands"),                     // answers, for the member
		withPassword(admin.URL + "/commands/"),                    // the same member again
		withPassword(fmt.Sprintf("http://127.0.0.1:%d", closed)),  // nothing listens
		"http://admin:" + secret + "@127.0.0.1:notaport/commands", // not a URL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	snap, err := Ask(ctx, connstr.ConnectString{Servers: []string{srv.ConnectString()}}, Options{Timeout: 2 * time.Second, AdminURLs: urls})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	fmt.Fprintln(&shown, snap.SourcesLine())
	for _, p := range snap.Problems {
		fmt.Fprintln(&shown, p.String())
	}
	shown.Write(js)
	if strings.Contains(shown.String(), secret) {
		t.Errorf("the password is shown:\n%s", shown.String())
	}
	if len(snap.Problems) < 3 || !strings.Contains(shown.String(), "admin:xxxxx@") {
		t.Errorf("want the three bad URLs named, redacted:\n%s", shown.String())
	}
}
