package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// ExportStats counts what an export wrote.
type ExportStats struct {
	Nodes      int // records written
	Ephemeral  int // of them ephemeral
	Unreadable int // of them with an error instead of data
	NoRead     int // of those, refused for want of READ permission
	// MaskedACL counts nodes whose digest hashes the server hid (the
	// session had no ADMIN on them): import refuses them.
	MaskedACL int
	DataBytes int64
}

// ExportOptions tunes Export.
type ExportOptions struct {
	Concurrency int // listings in flight (Walk's default when 0)
	// Server names where the export was read, for the header.
	Server string
	// Visited, when set, is called for each node written (progress).
	Visited func(path string)
}

// Export walks root (reading each node's data and ACL beside its
// listing) and writes the header and one record per node to w as the
// walk reaches it.
func Export(ctx context.Context, r zkview.Reader, root string, w io.Writer, opts ExportOptions) (ExportStats, error) {
	var st ExportStats
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(display.JSONWriter{Out: bw}) // bidi and zero-width characters in names and text as \u escapes
	enc.SetEscapeHTML(false)
	h := Header{Format: FormatVersion, Root: root, Server: opts.Server, Exported: time.Now().UTC().Format(time.RFC3339)}
	if err := enc.Encode(h); err != nil {
		return st, fmt.Errorf("write the export: %w", err)
	}
	err := zkview.Walk(ctx, r, root, zkview.WalkOptions{Concurrency: opts.Concurrency, Data: true, ACL: true}, func(n zkview.WalkNode) error {
		rec := recordOf(n)
		st.Nodes++
		switch {
		case rec.Error != "":
			st.Unreadable++
			if zkview.IsNoAuth(n.Err) {
				st.NoRead++
			}
		case rec.Ephemeral():
			st.Ephemeral++
		}
		if rec.MaskedACL() {
			st.MaskedACL++
		}
		st.DataBytes += int64(len(rec.Data))
		if opts.Visited != nil {
			opts.Visited(n.Path)
		}
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("write the export: %w", err)
		}
		return nil
	})
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write the export: %w", ferr)
	}
	return st, err
}
