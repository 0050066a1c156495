package zkview

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/zkdial"
)

// ConnectStatus says what a Dial in progress waits for, for a screen that
// shows it while the user waits (WithConnectStatus).
type ConnectStatus struct {
	mu     sync.Mutex
	dials  *zkdial.Watch
	phase  string // after the session opened: Dial's own steps
	since  time.Time
	opened time.Time
}

// NewConnectStatus returns a status to give Dial.
func NewConnectStatus() *ConnectStatus { return &ConnectStatus{opened: time.Now()} }

// WithConnectStatus has Dial report its progress to s.
func WithConnectStatus(s *ConnectStatus) Option { return func(o *options) { o.status = s } }

func (s *ConnectStatus) watching(w *zkdial.Watch) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dials = w
}

func (s *ConnectStatus) set(phase string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase, s.since = phase, time.Now()
}

// Lines say what the dial waits for and how long it has, then how each
// member that failed did: "127.0.0.1:2181: waiting for its answer to the
// session request (3s)".
func (s *ConnectStatus) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dials == nil {
		return []string{"starting"}
	}
	p := s.dials.Progress()
	phase, since := p.Phase, p.Since
	if s.phase != "" && s.since.After(since) {
		phase, since = s.phase, s.since
	}
	if phase == "" {
		phase, since = "starting", s.opened
	}
	line := phase
	if p.Member != "" {
		line = p.Member + ": " + phase
	}
	lines := []string{fmt.Sprintf("%s (%s)", line, time.Since(since).Round(time.Second))}
	for _, f := range p.Failed {
		lines = append(lines, "failed: "+strings.ReplaceAll(f, "\n", " "))
	}
	return lines
}
