package tui

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestSystemObjectsOfferOnlyForceRelease: zkx takes no part in a real
// system's coordination — standing in Kafka's controller election would
// make zkx a candidate Kafka does not know — so a system object's page
// offers only force-release (clearing a stale holder), while the same
// election of no system offers volunteer and resign too.
func TestSystemObjectsOfferOnlyForceRelease(t *testing.T) {
	t.Parallel()
	shared := listsShared(t, &listsClock{now: listsEpoch})
	shared.Writer, shared.Actor = &zkview.Writer{}, &actor{} // not read-only; never used here
	a := shared.Keys.Action
	has := func(keys []key.Binding, want key.Binding) bool {
		return slices.ContainsFunc(keys, func(k key.Binding) bool { return k.Help() == want.Help() })
	}
	for _, tc := range []struct {
		name      string
		election  *recognize.Election
		volunteer bool
	}{
		{"a system's", &recognize.Election{Path: "/kafka/controller", Format: "curator",
			SystemTag: recognize.SystemTag{System: "kafka", Role: "controller"}}, false},
		{"no system's", &recognize.Election{Path: "/app/leader", Format: "curator"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := newRecipePane(shared, tc.election.Path)
			view.recipe = tc.election
			p := &recipePage{shared: shared, view: view}
			keys := p.Keys()
			if !has(keys, a.ForceRelease) {
				t.Error("force-release not offered")
			}
			if has(keys, a.Volunteer) != tc.volunteer || has(keys, a.Resign) != tc.volunteer {
				t.Errorf("volunteer/resign offered: %v, want %v", has(keys, a.Volunteer), tc.volunteer)
			}
			cmd := p.key(tea.KeyPressMsg{Code: 'v', Text: "v"})
			if (cmd != nil) != tc.volunteer {
				t.Errorf("v answered with a command: %v, want %v", cmd != nil, tc.volunteer)
			}
		})
	}
}
