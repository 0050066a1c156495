package present

import (
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// TestHeardOnePrecedence: the same contender reads the same whatever the
// front end, in one order: no connection before silent before heard
// before unknown.
func TestHeardOnePrecedence(t *testing.T) {
	t.Parallel()
	heard := zkview.Liveness{Heard: epoch.Add(-2 * time.Second), ReadAt: epoch, Timeout: 30 * time.Second}
	quiet := zkview.Liveness{Heard: epoch.Add(-15 * time.Second), ReadAt: epoch, Timeout: 30 * time.Second, ExpiresBy: epoch.Add(16 * time.Second)}
	ms := int64(15000)
	for _, tc := range []struct {
		name  string
		c     recognize.Contender
		state HeardState
		cell  string
		text  string
	}{
		{"heard", recognize.Contender{SessionID: 1, Session: "0x1", Connected: yes(), Liveness: heard}, HeardRecently, "2s", "2s ago"},
		{"heard, at least", recognize.Contender{SessionID: 1, Session: "0x1", Liveness: func() zkview.Liveness { l := heard; l.AtLeast = true; return l }()},
			HeardRecently, "≥2s", "≥2s ago"},
		{"silent", recognize.Contender{SessionID: 1, Session: "0x1", Connected: yes(), Liveness: quiet}, HeardSilent, "SILENT 15s",
			"SILENT for 15s: frozen or cut off, its session expires by 12:00:16 at the latest"},
		{"silent, the tick not known", recognize.Contender{SessionID: 1, Session: "0x1", Connected: yes(),
			Liveness: func() zkview.Liveness { l := quiet; l.ExpiresByApprox = true; return l }()}, HeardSilent, "SILENT 15s",
			"SILENT for 15s: frozen or cut off, its session expires about 12:00:16"},
		{"silent and no connection: no connection first", recognize.Contender{SessionID: 1, Session: "0x1", Connected: no(), Liveness: quiet},
			HeardNoConnection, "NO CONN", "NO CONNECTION: no server lists its session; its node stays until the session expires"},
		{"read back from JSON", recognize.Contender{SessionID: 1, Session: "0x1", LastHeardMs: &ms, Silent: true}, HeardSilent, "SILENT 15s",
			"SILENT for 15s: frozen or cut off"},
		{"tables not read", recognize.Contender{SessionID: 1, Session: "0x1"}, HeardUnknown, "?", "unknown (the servers do not say)"},
		{"persistent node", recognize.Contender{}, HeardNoSession, "-", "no session: a persistent node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := HeardOf(tc.c, epoch.Add(time.Minute)) // later than the read: the silence is as of the read
			if h.State != tc.state || h.Cell != tc.cell || h.Text != tc.text {
				t.Errorf("got %v %q %q, want %v %q %q", h.State, h.Cell, h.Text, tc.state, tc.cell, tc.text)
			}
			if h.Alarming() != (tc.state == HeardSilent || tc.state == HeardNoConnection) {
				t.Errorf("alarming %v in state %v", h.Alarming(), h.State)
			}
		})
	}
}

func TestHeld(t *testing.T) {
	t.Parallel()
	ms := int64(90_000)
	for _, tc := range []struct {
		name              string
		c                 recognize.Contender
		cell, text, inner string
		known             bool
	}{
		{"seen begin", recognize.Contender{HeldSince: epoch.Add(-3 * time.Minute), Created: epoch.Add(-5 * time.Minute)},
			"3m00s", "since 11:57:00 (3m00s)", "held since 11:57:00 (3m00s)", true},
		{"read back from JSON", recognize.Contender{HeldMs: &ms}, "1m30s", "for 1m30s", "held for 1m30s", true},
		{"not seen: its node's age bounds it", recognize.Contender{Created: epoch.Add(-5 * time.Minute)},
			"≤5m00s", "at most 5m00s: its node's age (zkx did not see it begin to hold)", "held ≤5m00s (start not seen)", false},
		{"nothing known", recognize.Contender{}, "?", "for a time not known (zkx did not see it begin to hold)", "held: start not seen", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := HeldOf(tc.c, epoch)
			if h.Cell != tc.cell || h.Text != tc.text || h.Phrase != tc.inner || h.Known != tc.known {
				t.Errorf("got %+v", h)
			}
		})
	}
}

func TestRoleAndLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    recognize.Place
		want string
	}{
		{recognize.Place{Role: recognize.RoleHolder}, "holder"},
		{recognize.Place{Role: recognize.RoleWaiter, Position: 2, Contender: recognize.Contender{Kind: "write"}}, "waiter 2 (write)"},
		{recognize.Place{Role: recognize.RoleWaiter, Position: 1, Contender: recognize.Contender{MayHold: true}}, "waiter 1 (may hold)"},
		{recognize.Place{Role: recognize.RoleWaiter, Position: 1, Contender: recognize.Contender{Kind: "read", MayHold: true}}, "waiter 1 (read, may hold)"},
		{recognize.Place{Role: recognize.RoleLease, Contender: recognize.Contender{Kind: "lease"}}, "lease"},
	} {
		if got := Role(tc.p); got != tc.want {
			t.Errorf("Role(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	for _, tc := range []struct {
		node string
		seq  int32
		want string
	}{
		{"_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000003", 3, "#3"},
		{"x-72057594037927937--2147483648", -2147483648, "#-2147483648"},
		{"lock--000000005", -5, "#-5"},
		{"lock", 0, "lock"},
		{"weird\x1bname", 0, `weird\x1bname`},
	} {
		if got := Label(recognize.Contender{Node: tc.node, Seq: tc.seq}); got != tc.want {
			t.Errorf("Label(%q) = %q, want %q", tc.node, got, tc.want)
		}
	}
}

// TestFactsOfAMayHoldWaiter: a waiter that may hold says why, as an
// alarm; a holder's facts say who takes over.
func TestFactsOfAMayHoldWaiter(t *testing.T) {
	t.Parallel()
	l := &recognize.Lock{Path: "/l", Recipe: "mutex", Format: "mixed",
		Holders: []recognize.Contender{{Node: "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000000", Format: "curator", Session: "0x10", SessionID: 0x10}},
		Waiters: []recognize.Contender{{Node: "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1__lock__0000000001", Seq: 1, Format: "kazoo", Session: "0x11", SessionID: 0x11,
			WaitsFor: "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000000", MayHold: true, MayHoldReason: "holds if it runs as Kazoo Lock"}}}
	places := l.Lineup()
	var labels []string
	for _, f := range Facts(l, places[1], epoch) {
		labels = append(labels, f.Label)
		if f.Label == "may hold" && (!f.Alarm || f.Text != "holds if it runs as Kazoo Lock") {
			t.Errorf("may hold fact %+v", f)
		}
	}
	if strings.Join(labels, ",") != "waiter,format,session,client,heard,may hold" {
		t.Errorf("a waiter's facts: %q", labels)
	}
	if got := MayAlsoHold(l); len(got) != 1 || got[0] != "kazoo __lock__0000000001 (session 0x11): holds if it runs as Kazoo Lock" {
		t.Errorf("MayAlsoHold = %q", got)
	}
	if got := Head(l, time.Now()); got != "mutex · mixed · 1 holding · 1 waiting (1 may hold)" {
		t.Errorf("Head = %q", got)
	}
}

func TestDueAndMax(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		due  time.Time
		want string
	}{
		{now.Add(-12 * time.Minute), "overdue 12m"},
		{now.Add(3 * time.Minute), "due in 3m00s"},
		{time.Time{}, ""},
	} {
		if got := Due(recognize.QueueItem{Due: tt.due}, now); got != tt.want {
			t.Errorf("Due(%v) = %q, want %q", tt.due, got, tt.want)
		}
	}
	for _, tt := range []struct {
		l    recognize.Lock
		want string
	}{
		{recognize.Lock{Recipe: "semaphore", MaxFrom: recognize.MaxFromUnknown}, "max unknown: Curator keeps it in its clients' code"},
		{recognize.Lock{Recipe: "semaphore", MaxLeases: 3, MaxFrom: recognize.MaxFromConvention, MaxPath: "/a/sem-max"}, "max 3 (the SharedCount at /a/sem-max, found by its name)"},
		{recognize.Lock{Recipe: "semaphore", MaxLeases: 1, MaxFrom: recognize.MaxFromOption, MutexBySemaphore: true}, "mutex by semaphore, max 1 (as zkx was told)"},
		{recognize.Lock{Recipe: "mutex"}, ""},
	} {
		if got := Max(&tt.l); got != tt.want {
			t.Errorf("Max(%+v) = %q, want %q", tt.l, got, tt.want)
		}
	}
}
