package zkview

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
)

// ErrNotOwner is DeleteOwned's answer when the node now belongs to
// another session than the one named: it changed hands since it was read.
var ErrNotOwner = errors.New("the node belongs to another session now")

// DeleteOwned deletes path only while it is still the ephemeral node of
// session (any owner when session is 0), at the version just read: a node
// that went or changed hands meanwhile is left alone, with an error that
// says so (IsNoNode for one already gone, ErrNotOwner for another owner's).
func (w *Writer) DeleteOwned(ctx context.Context, path string, session int64) error {
	st, err := w.client.Exists(ctx, path)
	if err != nil {
		return err
	}
	if st == nil {
		return &PathError{Op: "delete", Path: path, Err: fmt.Errorf("already gone: %w", zk.ErrNoNode)}
	}
	if session != 0 && st.EphemeralOwner != session {
		return &PathError{Op: "delete", Path: path, Err: fmt.Errorf("%w (%s, not %s): left alone", ErrNotOwner,
			display.Hex(st.EphemeralOwner), display.Hex(session))}
	}
	return w.Delete(ctx, path, st.Version)
}

// SetOwned writes data into path only while it is still the ephemeral node
// of session (any owner when session is 0), at the version just read, and
// returns the node's new stat: a node that went or changed hands meanwhile
// is left alone, with an error that says so, as DeleteOwned's.
func (w *Writer) SetOwned(ctx context.Context, path string, data []byte, session int64) (*zk.Stat, error) {
	st, err := w.client.Exists(ctx, path)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &PathError{Op: "set", Path: path, Err: fmt.Errorf("already gone: %w", zk.ErrNoNode)}
	}
	if session != 0 && st.EphemeralOwner != session {
		return nil, &PathError{Op: "set", Path: path, Err: fmt.Errorf("%w (%s, not %s): left alone", ErrNotOwner,
			display.Hex(st.EphemeralOwner), display.Hex(session))}
	}
	return w.Set(ctx, path, data, st.Version)
}
