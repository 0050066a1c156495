package cmd

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	zksnapshot "github.com/zkx-dev/zkx/internal/snapshot"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// snapshotLineJSON is one line of zkx snapshot -o json: a node, a
// session, or the digest (type says which).
type snapshotLineJSON struct {
	Type string `json:"type"` // node, session, digest
	// A node's fields.
	Path           string   `json:"path,omitempty"`
	Czxid          string   `json:"czxid,omitempty"`
	Mzxid          string   `json:"mzxid,omitempty"`
	Pzxid          string   `json:"pzxid,omitempty"`
	Ctime          string   `json:"ctime,omitempty"`
	Mtime          string   `json:"mtime,omitempty"`
	Version        *int32   `json:"version,omitempty"`
	Cversion       *int32   `json:"cversion,omitempty"`
	Aversion       *int32   `json:"aversion,omitempty"`
	EphemeralOwner string   `json:"ephemeral_owner,omitempty"`
	DataLength     *int     `json:"data_length,omitempty"`
	Data           string   `json:"data,omitempty"` // base64, with --data
	ACL            []string `json:"acl,omitempty"`
	// A session's (and the digest's zxid).
	Session   string `json:"session,omitempty"`
	TimeoutMs int32  `json:"timeout_ms,omitempty"`
	Zxid      string `json:"zxid,omitempty"`
	Digest    string `json:"digest,omitempty"`
}

// snapshotOptions are zkx snapshot's flags and argument.
type snapshotOptions struct {
	output   string        // -o as given
	format   cliout.Format // -o, once checked
	path     string        // --path: only the nodes at or under it
	withData bool
	file     string
}

func newSnapshotCommand(run runFunc[*snapshotOptions]) *cobra.Command {
	opts := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "snapshot FILE",
		Short: "Print the nodes, sessions and digest of a ZooKeeper snapshot",
		Long: `snapshot reads one ZooKeeper snapshot (snapshot.<zxid>, plain, .gz or .snappy)
streaming and prints, as ZooKeeper's SnapshotFormatter does, every node with
its stat (czxid, mzxid, pzxid, mtime, versions, ephemeral owner, data length),
then the session table with each session's timeout and ephemeral count, then
the tree digest the snapshot carries. --path keeps the nodes at or under a
path; --data adds each node's data (base64 in JSON, a one-line summary in the
table). The snapshot's checksum is checked: a damaged or truncated file is an
error naming the offset.

JSON (-o json) is JSON Lines, one object per record, its type saying which:
node (path, czxid, mzxid, pzxid, ctime, mtime, version, cversion as the
server stores it, aversion, ephemeral_owner, data_length, acl, data with
--data), session (session, timeout_ms) and digest (zxid, digest).`,
		Example: `  zkx snapshot /var/lib/zookeeper/version-2/snapshot.100000a2c
  zkx snapshot snapshot.1f.gz --path /app -o json | jq -r 'select(.type=="node") | .path'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table or json (JSON Lines)")
	cmd.Flags().StringVar(&opts.path, "path", "", "only the nodes at or under this path")
	cmd.Flags().BoolVar(&opts.withData, "data", false, "print each node's data too")
	return cmd
}

func (o *snapshotOptions) complete(args []string) (err error) {
	if o.format, err = cliout.ParseFormat(o.output); err != nil {
		return err
	}
	if o.path != "" {
		if o.path, err = checkPath(o.path); err != nil {
			return err
		}
	}
	o.file = args[0]
	return nil
}

// runSnapshotFile prints the snapshot opts.file.
func runSnapshotFile(_ context.Context, opts *snapshotOptions, std streams) error {
	return runSnapshot(std.out, opts.file, opts.path, opts.withData, opts.format)
}

func runSnapshot(w io.Writer, file, prefix string, withData bool, format cliout.Format) error {
	r, err := zksnapshot.Open(file)
	if err != nil {
		return err
	}
	defer r.Close()
	out := bufio.NewWriterSize(w, 256<<10)
	defer out.Flush()
	keep := func(p string) bool {
		return prefix == "" || prefix == "/" || p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	ephemerals := map[int64]int{}
	var enc *json.Encoder
	var buf []byte
	var clock txnTable // its time cache: mtimes cluster by the second
	if format == cliout.JSON {
		enc = json.NewEncoder(out)
		enc.SetEscapeHTML(false)
	} else {
		h := r.Header()
		fmt.Fprintf(out, "%s: ZooKeeper snapshot version %d, dbid %d, %s, %s, %d ACL lists\n",
			file, h.Version, h.DBID, r.Compression(), plural(len(r.Sessions()), "session"), len(r.ACLs()))
		fmt.Fprintf(out, "%-10s  %-10s  %-10s  %-23s  %-7s  %-8s  %-8s  %-18s  %-9s  %s\n",
			"CZXID", "MZXID", "PZXID", "MTIME", "VERSION", "CVERSION", "AVERSION", "EPHEMERAL OWNER", "DATA", "PATH")
	}
	for {
		n, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Flush()
			return err
		}
		if owner := n.Stat.EphemeralOwner; owner != 0 {
			ephemerals[owner]++
		}
		if !keep(n.Path) {
			continue
		}
		st := n.Stat
		if enc != nil {
			v, cv, av, dl := st.Version, st.Cversion, st.Aversion, len(n.Data)
			line := snapshotLineJSON{Type: "node", Path: n.Path, Czxid: display.Hex(st.Czxid), Mzxid: display.Hex(st.Mzxid),
				Pzxid: display.Hex(st.Pzxid), Ctime: statTimeJSON(st.Ctime), Mtime: statTimeJSON(st.Mtime),
				Version: &v, Cversion: &cv, Aversion: &av, EphemeralOwner: display.Hex(st.EphemeralOwner), DataLength: &dl}
			if acl, ok := r.ACL(n.ACL); ok {
				line.ACL = strings.Split(juteACLText(acl), ",")
			}
			if withData && n.Data != nil {
				line.Data = base64.StdEncoding.EncodeToString(n.Data)
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
			continue
		}
		b := buf[:0]
		b = padHex(b, st.Czxid, 10)
		b = padHex(b, st.Mzxid, 10)
		b = padHex(b, st.Pzxid, 10)
		if st.Mtime == 0 {
			b = pad(b, "-", 23)
		} else {
			b = clock.appendTime(b, time.UnixMilli(st.Mtime))
		}
		b = append(b, "  "...)
		b = pad(b, strconv.Itoa(int(st.Version)), 7)
		b = append(b, "  "...)
		b = pad(b, strconv.Itoa(int(st.Cversion)), 8)
		b = append(b, "  "...)
		b = pad(b, strconv.Itoa(int(st.Aversion)), 8)
		b = append(b, "  "...)
		b = padHex(b, st.EphemeralOwner, 18)
		b = pad(b, strconv.Itoa(len(n.Data)), 9)
		b = append(b, "  "...)
		b = appendLine(b, n.Path)
		if withData && len(n.Data) > 0 {
			b = append(b, "  "...)
			b = strconv.AppendQuote(b, summaryOf(n.Data))
		}
		b = append(b, '\n')
		buf = b
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	sessions := append([]zksnapshot.Session(nil), r.Sessions()...)
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].ID < sessions[j].ID })
	d := r.Digest()
	if enc != nil {
		for _, s := range sessions {
			if err := enc.Encode(snapshotLineJSON{Type: "session", Session: display.Hex(s.ID), TimeoutMs: s.TimeoutMs}); err != nil {
				return err
			}
		}
		if d != nil {
			return enc.Encode(snapshotLineJSON{Type: "digest", Zxid: display.Hex(d.Zxid), Digest: display.Hex(d.Digest)})
		}
		return nil
	}
	fmt.Fprintf(out, "\n%d nodes; sessions (id, timeout, ephemerals):\n", r.Nodes())
	for _, s := range sessions {
		fmt.Fprintf(out, "  %s  %d ms  %d\n", display.Hex(s.ID), s.TimeoutMs, ephemerals[s.ID])
	}
	if d != nil {
		fmt.Fprintf(out, "digest %s at zxid %s (version %d)\n", display.Hex(d.Digest), display.Hex(d.Zxid), d.Version)
	}
	return nil
}

func padHex(b []byte, v int64, width int) []byte {
	b = pad(append(b, "0x"...), strconv.FormatUint(uint64(v), 16), width-2)
	return append(b, "  "...)
}

// summaryOf is decode.Summary at the tables' width, without its cost for
// the short printable ASCII most data is (which it shows as it is).
func summaryOf(data []byte) string {
	if len(data) > dataWidth {
		return decode.Summary(data, dataWidth)
	}
	first := true
	for _, c := range data {
		if c < 0x20 || c > 0x7e {
			return decode.Summary(data, dataWidth)
		}
		if first && c != ' ' {
			if c == '{' || c == '[' { // maybe JSON, which Summary compacts
				return decode.Summary(data, dataWidth)
			}
			first = false
		}
	}
	return string(data)
}
