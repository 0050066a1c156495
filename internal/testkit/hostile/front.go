package hostile

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// front listens on loopback in front of the server at backend: ZooKeeper's
// protocol passes through; a four-letter word is asked of the server and
// its answer rewritten with hostile text (poison) before it is passed on.
func front(t testing.TB, backend string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		open = append(open, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			track(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				pass(c, backend, track)
			}()
		}
	}()
	return ln.Addr().String()
}

// pass serves one connection of the front.
func pass(c net.Conn, backend string, track func(net.Conn)) {
	r := bufio.NewReader(c)
	head, err := r.Peek(4)
	if err != nil {
		return
	}
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	track(b)
	defer b.Close()
	if word := string(head); isFourLetterWord(word) {
		if _, err := b.Write(head); err != nil {
			return
		}
		answer, _ := io.ReadAll(b)
		c.Write([]byte(poison(word, string(answer))))
		return
	}
	go func() {
		io.Copy(b, r)
		b.Close()
	}()
	io.Copy(c, b)
}

func isFourLetterWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// poison rewrites a four-letter word's answer: hostile text where
// ZooKeeper puts free text (the version, the mode, mntr's keys and values,
// the environment); cons lists a connection for each of the scene's
// sessions with a hostile last operation, wchc hostile paths they watch.
func poison(word, answer string) string {
	var out []string
	switch word {
	case "srvr", "stat":
		for _, l := range strings.Split(answer, "\n") {
			switch {
			case strings.HasPrefix(l, "Zookeeper version: "):
				l += " " + Text("version")
			case strings.HasPrefix(l, "Mode: "):
				l = "Mode: " + Text("mode")
			}
			out = append(out, l)
		}
	case "mntr":
		for _, l := range strings.Split(strings.TrimRight(answer, "\n"), "\n") {
			if k, _, ok := strings.Cut(l, "\t"); ok && (k == "zk_version" || k == "zk_server_state") {
				l = k + "\t" + strings.ReplaceAll(Text(k), "\t", "")
			}
			out = append(out, l)
		}
		out = append(out, "zk_"+strings.ReplaceAll(Text("key"), "\t", "")+"\t1", "")
	case "envi":
		out = append(out, strings.Split(strings.TrimRight(answer, "\n"), "\n")...)
		out = append(out, "host.name="+Text("host"), "")
	case "cons":
		out = append(out, strings.Split(strings.TrimRight(answer, "\n"), "\n")...)
		for i, id := range Sessions {
			out = append(out, fmt.Sprintf(" /10.0.0.%d:4242[1](queued=0,recved=1,sent=1,sid=0x%x,lop=%s,est=%d,to=30000,lcxid=0x1,lzxid=0x1,lresp=1,llat=0,minlat=0,avglat=0,maxlat=0)",
				i+1, id, strings.NewReplacer(",", "", ")", "", "(", "").Replace(Text("op")), Epoch.UnixMilli()))
		}
		out = append(out, "", "")
	case "wchc":
		out = append(out, strings.TrimRight(answer, "\n"))
		for _, id := range Sessions {
			out = append(out, fmt.Sprintf("0x%x", id), "\t"+CuratorLock+"/"+Text("watched"))
		}
		out = append(out, "")
	default:
		return answer
	}
	return strings.Join(out, "\n")
}
