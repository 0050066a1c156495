package recognize

import (
	"context"
	"fmt"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// Curator's PersistentTtlNode (curator-recipes nodes/PersistentTtlNode
// .java) keeps a node alive while its owner runs: the node itself is a
// container (a PersistentNode in CONTAINER mode), and its child "touch"
// (DEFAULT_CHILD_NODE_NAME) a node created with a TTL (PERSISTENT_WITH_TTL,
// ttlMs) whose data the owner sets every ttlMs / touchScheduleFactor (2 by
// default, DEFAULT_TOUCH_SCHEDULE_FACTOR). When the owner stops, touch is
// no longer changed; ZooKeeper deletes it once unchanged for its TTL (at
// its container manager's next check), and then the container, empty.
//
// ZooKeeper 3.8 shows a TTL node's owner as 0 to clients, so the TTL is
// not readable: zkx estimates the touch interval from touch's life (the
// time from its creation to its last change over its dataVersion, the
// touches since) and takes the TTL for touchScheduleFactor times it.

// The judgements of a TTL node's owner (TTLNode.Owner).
const (
	TTLOwnerAlive   = "alive"   // touched within 1.5 intervals
	TTLOwnerLate    = "late"    // a touch is overdue, the TTL not yet past
	TTLOwnerGone    = "gone"    // untouched for longer than the estimated TTL
	TTLOwnerUnknown = "unknown" // touched once only: no interval to judge by
)

// ttlTouchFactor is Curator's DEFAULT_TOUCH_SCHEDULE_FACTOR.
const ttlTouchFactor = 2

// ttlTouchChild is Curator's DEFAULT_CHILD_NODE_NAME.
const ttlTouchChild = "touch"

// RoleTouch is the Place of a TTL node's touch child.
const RoleTouch = "touch"

// TTLNode is a recognised Curator PersistentTtlNode.
type TTLNode struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	// Data is the node's own data (the owner's initData).
	Data string `json:"data"`
	// TouchAgeMs is how long ago touch was last set (or created).
	TouchAgeMs int64 `json:"touch_age_ms"`
	// Touches is touch's dataVersion: the touches since it was created.
	Touches int32 `json:"touches"`
	// TouchEveryMs is the touch interval zkx estimates from touch's life;
	// absent after one touch only.
	TouchEveryMs *int64 `json:"touch_every_ms,omitempty"`
	// TTLMs is the TTL zkx takes it for: touchScheduleFactor (2) times the
	// interval; absent with the interval.
	TTLMs *int64 `json:"ttl_ms,omitempty"`
	// Owner is alive, late, gone or unknown (see TTLOwnerAlive…).
	Owner    string   `json:"owner"`
	Warnings []string `json:"warnings"`

	Touched      time.Time `json:"-"`
	TouchCreated time.Time `json:"-"`
}

// isTTLNode: a PersistentTtlNode's only child is touch.
func (d listedDir) isTTLNode() bool { return len(d.names) == 1 && d.names[0].Kind == kindTouch }

// ttlNode reads a PersistentTtlNode at d; nil when touch is not a
// persistent leaf.
func (rc *recognizer) ttlNode(ctx context.Context, d listedDir) (Recipe, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil {
		return nil, err
	}
	_, touch, err := rc.get(ctx, zkview.ChildPath(d.path, ttlTouchChild))
	if err != nil || touch == nil || touch.NumChildren != 0 || touch.EphemeralOwner != 0 || stat.EphemeralOwner != 0 {
		return nil, err
	}
	n := &TTLNode{Path: d.path, Format: recFormatCurator, Data: dataText(data), Touches: touch.Version, Owner: TTLOwnerUnknown, Warnings: []string{}}
	now := rc.opts.Now
	n.TouchCreated, n.Touched = time.UnixMilli(touch.Ctime), time.UnixMilli(touch.Mtime)
	age := max(now.Sub(n.Touched), 0)
	n.TouchAgeMs = age.Milliseconds()
	if touch.Version > 0 && touch.Mtime > touch.Ctime {
		every := n.Touched.Sub(n.TouchCreated) / time.Duration(touch.Version)
		ttl := every * ttlTouchFactor
		everyMs, ttlMs := every.Milliseconds(), ttl.Milliseconds()
		n.TouchEveryMs, n.TTLMs = &everyMs, &ttlMs
		switch {
		case age <= every*3/2:
			n.Owner = TTLOwnerAlive
		case age <= ttl:
			n.Owner = TTLOwnerLate
			n.Warnings = append(n.Warnings, fmt.Sprintf("touch is late: last set %v ago, while it was set every %v: its owner may be stopping (a TTL of about %v remains before ZooKeeper may delete it)",
				age.Round(time.Second), every.Round(100*time.Millisecond), (ttl-age).Round(time.Second)))
		default:
			n.Owner = TTLOwnerGone
			n.Warnings = append(n.Warnings, fmt.Sprintf("owner gone: touch was last set %v ago, longer than its TTL of about %v (%d × the %v it was set every, Curator's default touchScheduleFactor): ZooKeeper deletes touch at its next TTL check, then this node, an empty container",
				age.Round(time.Second), ttl.Round(time.Second), ttlTouchFactor, every.Round(100*time.Millisecond)))
		}
	}
	return n, nil
}

// Info implements Recipe.
func (n *TTLNode) Info() Info {
	return Info{Path: n.Path, Kind: "ttl-node", Class: ClassTTLNode, Format: n.Format, Warnings: n.Warnings, SystemTag: n.SystemTag}
}

// Holding implements Recipe: its owner has no node of its own.
func (n *TTLNode) Holding() []Contender { return nil }

// Lineup implements Recipe: the touch child.
func (n *TTLNode) Lineup() []Place {
	c := Contender{Node: ttlTouchChild, Format: n.Format, Created: n.TouchCreated, AgeMs: n.TouchAgeMs,
		Data: fmt.Sprintf("%d touches", n.Touches)}
	return []Place{{Role: RoleTouch, Contender: c}}
}

// Dirs implements Recipe.
func (n *TTLNode) Dirs() []string { return []string{n.Path} }

// Emptied implements Recipe.
func (n *TTLNode) Emptied() Recipe {
	return &TTLNode{Path: n.Path, Format: n.Format, Owner: TTLOwnerUnknown, SystemTag: n.SystemTag}
}

func (n *TTLNode) addTo(res *Result)     { res.TTLNodes = append(res.TTLNodes, *n) }
func (n *TTLNode) members() []*Contender { return nil }
