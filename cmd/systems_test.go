package cmd

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/syslayout"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestSystemsCommand: zkx systems on every system laid out with its real
// paths and bytes: one summary per system and root, leaders with sessions
// and clients, and the warnings the layouts are built to show; the table
// names them too.
func TestSystemsCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		var mu sync.Mutex
		conns := map[string]*zk.Conn{}
		l := syslayout.New(zktest.Conn(t, connect), func(name string) (*zk.Conn, error) {
			mu.Lock()
			defer mu.Unlock()
			if c, ok := conns[name]; ok {
				return c, nil
			}
			c := zktest.Conn(t, connect)
			conns[name] = c
			return c, nil
		}, time.Now().UnixMilli())
		if err := l.All(context.Background(), base); err != nil {
			t.Fatal(err)
		}
		var systems []recognize.SystemSummary
		runJSON(t, &systems, "--server", connect, "systems", "-o", "json", base)
		var names []string
		for _, s := range systems {
			names = append(names, s.System)
			for _, ld := range s.Leaders {
				if ld.Leader == nil || ld.Leader.Session == "" || ld.Leader.Client == "" {
					t.Errorf("%s %s: leader %+v has no session or client", s.System, ld.Role, ld.Leader)
				}
			}
		}
		if got := strings.Join(names, ","); got != "bookkeeper,clickhouse,curator-discovery,druid,hbase,hdfs,helix,kafka,solr,storm,yarn" {
			t.Errorf("systems %s", got)
		}
		out, _, err := run(t, "--server", connect, "systems", base+"/kafka")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"kafka  " + base + "/kafka", "controller", "broker 1 · epoch 7", "in line: broker 2, broker 3",
			"isr-change           2 pending", "controller epoch went backwards"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
}
