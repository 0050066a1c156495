package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// withTimeout runs do in a command, its context bounded by timeout (none
// when timeout is 0: a wait the user ends, such as queueing for a lock),
// and delivers the message it returns.
func withTimeout(ctx context.Context, timeout time.Duration, do func(ctx context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return do(ctx)
	}
}

// act runs one action for the user (a delete, a release, an enqueue…) in
// a command bounded by timeout, and reports it on the status line: the
// text do returns, or do's error.
func act(ctx context.Context, timeout time.Duration, do func(ctx context.Context) (done string, err error)) tea.Cmd {
	return withTimeout(ctx, timeout, func(ctx context.Context) tea.Msg {
		text, err := do(ctx)
		if err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		return statusMsg{text: text}
	})
}
