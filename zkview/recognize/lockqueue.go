package recognize

import (
	"fmt"
	"sort"
	"strings"
)

// lockContender is one contender of a mutex or a read-write lock, with the
// rules its library may run by, the library's default first.
type lockContender struct {
	node   childNode
	format string
	role   string // read | write in a read-write lock, "" in a mutex
	rules  []lockRule
}

// contenderVerdict is a lock contender, the rule its library is taken to
// run by, what that rule decides for it, and the Contender the model shows.
type contenderVerdict struct {
	contender lockContender
	rule      lockRule
	verdict   verdict
	shown     Contender
	// assumed: the library could run by another rule that decides
	// otherwise, and nothing told which (see chooseRules).
	assumed bool
	// known: the rule is the only one, or the watch tables showed it
	// (for this contender or another of its format).
	known bool
	// holdsBy is, for a contender shown waiting that may hold, the rule
	// by which it would hold (see mayHold).
	holdsBy *lockRule
}

// lock builds a mutex or a read-write lock from the lock nodes ms of a
// directory, sorted by sequence number: of one layout or of several, which
// are one queue then (the server numbers every child of a parent in one
// sequence). Each contender is judged by its own library's rule
// (lockview.go) over children, every child of the directory still there:
// whether it holds, and which node it watches. Every contender that holds
// for certain is a holder; one that holds only by a rule zkx cannot
// confirm is a waiter marked MayHold.
func (rc *recognizer) lock(d listedDir, ms []childNode, foreign []childName, children []string) *Lock {
	contenders := lockContenders(d.path, ms)
	l := &Lock{Path: d.path, Recipe: recMutex, Holders: []Contender{}, Waiters: []Contender{}}
	for _, s := range contenders {
		if f := s.node.family(); s.role == "read" || f == familyCuratorRW || f == familyPlainRW {
			l.Recipe = recRWLock
		}
	}
	rw := l.Recipe == recRWLock
	l.Format, l.Formats = lockFormat(contenders)
	b := rc.buildDir(d)
	choices := b.chooseRules(contenders, children, ms)
	var js []contenderVerdict
	for i, s := range contenders {
		j := contenderVerdict{contender: s}
		ch := choices[i]
		j.rule, j.verdict, j.assumed = s.rules[ch.rule], ch.verdict, ch.note != ""
		j.known = len(s.rules) == 1 || ch.evidence
		note := ch.note
		if j.assumed {
			if holds, waits, ok := mayHold(ch.verdicts); ok {
				j.holdsBy = &s.rules[holds]
				j.rule, j.verdict = s.rules[waits], ch.verdicts[waits]
				note = "" // the may-hold warning says it
			}
		}
		if j.verdict.holds {
			j.shown = b.holder(s.node, s.node.Name, "holder", true)
		} else {
			j.shown = b.waiter(s.node, s.node.Name, j.verdict.watch, true)
		}
		j.shown.Format, j.shown.View = s.format, j.rule.view
		if rw {
			j.shown.Kind = s.role
		}
		if j.holdsBy != nil {
			j.shown.MayHold = true
			j.shown.MayHoldReason = mayHoldReason(*j.holdsBy, j.rule, j.verdict.watch, b.tablesWhy(s.node.session()))
		}
		if note != "" {
			b.warnf("%s", note)
		}
		if j.verdict.fails != "" {
			b.warnf("%s %s (%s): %s", s.format, b.who(j.shown), j.rule.view, j.verdict.fails)
		}
		js = append(js, j)
	}
	for _, j := range js {
		if j.verdict.holds {
			l.Holders = append(l.Holders, j.shown)
		} else {
			l.Waiters = append(l.Waiters, j.shown)
		}
	}
	if l.Format == recFormatMixed {
		b.warnMixed(js, children)
		if l.Recipe == recMutex {
			b.warnAhead(js, children)
		}
	}
	b.warnKazooReaders(js)
	b.checkOrphans(ms, "")
	b.checkForeign(foreign, "", l.Format+" "+l.Recipe)
	b.checkWrap(namesOf(ms), "")
	l.handovers = handovers(l, js, children)
	for i := range l.Holders {
		l.Holders[i].Next = nextOf(js, l.Holders[i].Node, children)
	}
	l.Warnings, l.Alarms = b.warn, b.alarms
	var mayHolders []Contender
	for _, j := range js {
		if j.holdsBy != nil {
			mayHolders = append(mayHolders, j.shown)
		}
	}
	switch broken, maybe := brokenText(l.Holders), brokenText(append(append([]Contender{}, l.Holders...), mayHolders...)); {
	case broken != "":
		l.Broken = true
		l.Warnings = append([]string{broken}, l.Warnings...)
		l.Alarms = append([]Alarm{{Kind: AlarmTwoHolders, Text: broken}}, l.Alarms...)
		l.Warnings = append(l.Warnings, mayHoldWarnings(mayHolders)...)
	case maybe != "":
		text := maybeBrokenText(l.Holders, mayHolders)
		l.MaybeBroken = true
		l.Warnings = append([]string{text}, l.Warnings...)
		l.Alarms = append([]Alarm{{Kind: AlarmMaybeTwoHolders, Text: text}}, l.Alarms...)
	default:
		l.Warnings = append(l.Warnings, mayHoldWarnings(mayHolders)...)
	}
	return l
}

// mayHold looks at a contender's verdicts by each rule its library may
// run by: when one says it holds and another that it waits, it returns
// the first of each (the default first), and ok.
func mayHold(vs []verdict) (holds, waits int, ok bool) {
	holds, waits = -1, -1
	for i, v := range vs {
		switch {
		case v.fails != "":
		case v.holds && holds < 0:
			holds = i
		case !v.holds && waits < 0:
			waits = i
		}
	}
	return holds, waits, holds >= 0 && waits >= 0
}

// tablesWhy says why zkx cannot tell which rule a session's contender
// runs by: the tables were not read, or do not say.
func (b *recipeBuilder) tablesWhy(session int64) string {
	if b.rc.opts.Tables != nil && session != 0 {
		return "the servers' watch tables do not say"
	}
	return "the servers' watch tables were not read"
}

// tablesRemedy is what lets zkx tell which rule a contender runs by.
const tablesRemedy = "the servers' watch tables tell (the four-letter words wchc and wchp whitelisted, or the members' AdminServers given to zkx)"

// mayHoldReason says by which rule a contender shown waiting would hold,
// and by which it waits.
func mayHoldReason(holdsBy, waitsBy lockRule, waitsFor, why string) string {
	return fmt.Sprintf("holds if it runs as %s, waits for %s if it runs as %s: zkx cannot tell which (%s)", holdsBy.view, BareName(waitsFor), waitsBy.view, why)
}

// mayHoldWarnings names each waiter that may hold, in a warning.
func mayHoldWarnings(mayHolders []Contender) []string {
	var out []string
	for _, c := range mayHolders {
		out = append(out, fmt.Sprintf("%s may hold the lock: it %s, and is shown waiting; %s", roleName(c), c.MayHoldReason, tablesRemedy))
	}
	return out
}

// maybeBrokenText is the first warning of a lock broken only if waiters
// that may hold do: who may hold beside whom, why zkx is not sure, and
// what would tell.
func maybeBrokenText(holders, mayHolders []Contender) string {
	var sure, maybe, why []string
	for _, h := range holders {
		sure = append(sure, roleName(h))
	}
	for _, m := range mayHolders {
		maybe = append(maybe, roleName(m))
		why = append(why, m.Format+" "+BareName(m.Node)+" "+m.MayHoldReason)
	}
	text := "maybe two holders: " + strings.Join(maybe, " and ")
	switch {
	case len(sure) > 0:
		text += " may hold beside " + strings.Join(sure, " and ") + ", which holds for certain"
	default:
		text += " may each hold"
	}
	return text + ": " + strings.Join(why, "; ") + "; if so, mutual exclusion is broken. " + capitalise(tablesRemedy)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// roleName names a contender of a lock with its role in it: "kazoo
// writer X (session S)".
func roleName(c Contender) string {
	w := c.Format
	switch c.Kind {
	case "write":
		w += " writer"
	case "read":
		w += " reader"
	}
	return fmt.Sprintf("%s %s (session %s)", w, c.Node, c.Session)
}

// lockContenders gives every lock node its format, role and the rules its
// library may run by. zkx's own nodes are format zkx in Curator's layout
// (its default) and kazoo in Kazoo's (what zkx writes to join the lock),
// judged by zkx's rules either way.
func lockContenders(dir string, ms []childNode) []lockContender {
	readers, kazooReaders := false, false
	var exclusive, shared []string // other layouts' markers, for Kazoo's extra_lock_patterns
	generic := map[string]childName{}
	for _, m := range ms {
		switch m.Kind {
		case kindKazooRead:
			kazooReaders = true
		case kindCuratorLock, kindGoZKLock:
			exclusive = appendNew(exclusive, "-lock-")
		case kindCuratorWrite:
			exclusive = appendNew(exclusive, "__WRIT__")
		case kindCuratorRead:
			shared = appendNew(shared, "__READ__")
		}
		if m.role() == "read" {
			readers = true
		}
		if f := m.family(); f == familyPlainLock || f == familyPlainRW || f == familyGeneric {
			generic[m.Name] = m.childName
		}
	}
	contenders := make([]lockContender, 0, len(ms))
	for _, m := range ms {
		s := lockContender{node: m, format: m.format()}
		zkx := isZkxIdentity(m.data)
		switch m.Kind {
		case kindCuratorLock:
			if zkx {
				s.format, s.rules = recFormatZkx, []lockRule{zkxRule("zkx Mutex", []string{"lock-"}, "", false)}
			} else {
				s.rules = []lockRule{curatorMutexRule()}
			}
		case kindGoZKLock:
			s.rules = []lockRule{goZooKeeperRule()}
		case kindCuratorRead, kindCuratorWrite:
			s.role = m.role()
			if zkx {
				s.format = recFormatZkx
				s.rules = []lockRule{zkxRule("zkx RWMutex "+readerOrWriter(s.role), []string{"__READ__", "__WRIT__"}, "__WRIT__", s.role == "read")}
			} else if s.role == "read" {
				s.rules = []lockRule{curatorReaderRule()}
			} else {
				s.rules = []lockRule{curatorWriterRule()}
			}
		case kindKazooLock:
			if readers {
				s.role = "write"
			}
			switch {
			case zkx && kazooReaders:
				s.rules = []lockRule{zkxRule("zkx RWMutex writer (Kazoo layout)", []string{"__rlock__", "__lock__"}, "__lock__", false)}
			case zkx:
				s.rules = []lockRule{zkxRule("zkx Mutex (Kazoo layout)", []string{"__lock__"}, "", false)}
			default:
				// Lock and WriteLock write the same names; with readers
				// about, the lock is a read-write one, whose exclusive side
				// is WriteLock.
				class, patterns := "Lock", []string{"__lock__"}
				if kazooReaders {
					class, patterns = "WriteLock", []string{"__lock__", "__rlock__"}
				}
				s.rules = []lockRule{kazooRule(class, patterns, nil)}
				if extra := append(append([]string{}, exclusive...), shared...); len(extra) > 0 {
					s.rules = append(s.rules, kazooRule(class, patterns, extra))
				}
			}
		case kindKazooRead:
			s.role = "read"
			if zkx {
				s.rules = []lockRule{zkxRule("zkx RWMutex reader (Kazoo layout)", []string{"__rlock__", "__lock__"}, "__lock__", true)}
				break
			}
			s.rules = []lockRule{kazooRule("ReadLock", []string{"__lock__"}, nil)}
			if len(exclusive) > 0 {
				s.rules = append(s.rules, kazooRule("ReadLock", []string{"__lock__"}, exclusive))
			}
		case kindZKWriteLock:
			s.rules = []lockRule{zkWriteLockRule(dir)}
		default: // the plain layouts of tutorials, and any sequential name
			s.role = m.role()
			s.rules = []lockRule{genericRule(generic, s.role == "read")}
		}
		if !readers && s.role != "read" && m.family() != familyCuratorRW && m.family() != familyPlainRW {
			s.role = ""
		}
		contenders = append(contenders, s)
	}
	return contenders
}

func readerOrWriter(role string) string {
	if role == "read" {
		return "reader"
	}
	return "writer"
}

func appendNew(ss []string, s string) []string {
	for _, have := range ss {
		if have == s {
			return ss
		}
	}
	return append(ss, s)
}

// recFormatMixed is the format of a lock whose contenders are of several
// layouts.
const recFormatMixed = "mixed"

// lockFormat is the lock's format: its contenders' when they share one
// layout (zkx's own when every one is zkx's, as zkx writes Curator's and
// Kazoo's layouts), else mixed with the formats listed.
func lockFormat(contenders []lockContender) (string, []string) {
	formats := map[string]bool{}
	layouts := map[string]bool{}
	for _, s := range contenders {
		formats[s.format] = true
		layouts[s.node.format()] = true
	}
	switch {
	case len(formats) == 1:
		for f := range formats {
			return f, nil
		}
	case len(layouts) == 1:
		for f := range layouts {
			return f, nil // zkx's nodes among another library's, in its layout
		}
	case len(contenders) == 0:
		return recFormatGeneric, nil
	}
	list := make([]string, 0, len(formats))
	for f := range formats {
		list = append(list, f)
	}
	sort.Strings(list)
	return recFormatMixed, list
}

// knownAt is the children m's library may have seen when it last
// decided: every child but the lock nodes created after m. A contender
// that held goes on holding whatever comes after it; one that waits
// decides again when what it watches goes, among the children then, which
// the children now stand for.
func knownAt(children []string, ms []childNode, m childNode) []string {
	newer := map[string]bool{}
	for _, o := range ms {
		if o.stat.Czxid > m.stat.Czxid {
			newer[o.Name] = true
		}
	}
	if len(newer) == 0 {
		return children
	}
	out := make([]string, 0, len(children)-len(newer))
	for _, c := range children {
		if !newer[c] {
			out = append(out, c)
		}
	}
	return out
}

// decide is a rule's verdict for a contender: it holds when the rule let
// it in over the children it knew when it last decided (older), and
// otherwise waits for what the rule names among the children now.
func decide(r lockRule, children, older []string, self string) verdict {
	then := r.decide(older, self)
	if then.holds || then.fails != "" {
		return then
	}
	if now := r.decide(children, self); !now.holds {
		return now
	}
	return then
}

// choice is the rule a contender is judged by (an index into its rules),
// its verdict, and a note when the choice is a guess that matters.
type choice struct {
	rule    int
	verdict verdict
	note    string
	// evidence: the servers' watch tables showed which rule it (or
	// another contender of its format) runs by.
	evidence bool
	// verdicts are its verdicts by each of its rules.
	verdicts []verdict
}

// chooseRules decides, for every contender, which of the rules its library
// may run by it runs by. When they agree on what it does now, it does not
// matter now; it is taken to run as the contenders of its format whose
// rule is known do (a process configures all its locks alike), else by its
// library's default. When they disagree, the servers' watch tables tell:
// the rule whose predecessor the session watches, or, when the tables show
// it watching none of them, the rule by which it holds. Without them the
// default is taken, and the note says what else it may be.
func (b *recipeBuilder) chooseRules(contenders []lockContender, children []string, ms []childNode) []choice {
	out := make([]choice, len(contenders))
	verdicts := make([][]verdict, len(contenders))
	known := map[string]int{} // format → the rule contenders of it are seen to run by
	for i, s := range contenders {
		older := knownAt(children, ms, s.node)
		vs := make([]verdict, len(s.rules))
		for k, r := range s.rules {
			vs[k] = decide(r, children, older, s.node.Name)
		}
		verdicts[i] = vs
		out[i] = b.chooseRule(s, vs)
		out[i].verdicts = vs
		if out[i].evidence {
			known[s.format] = out[i].rule
		}
	}
	for i, s := range contenders {
		if out[i].evidence || out[i].note != "" {
			continue
		}
		if k, ok := known[s.format]; ok && k < len(s.rules) && verdicts[i][k] == out[i].verdict {
			out[i].rule, out[i].evidence = k, true
		}
	}
	return out
}

// chooseRule picks one contender's rule from its verdicts by each.
func (b *recipeBuilder) chooseRule(s lockContender, vs []verdict) choice {
	alt := -1
	for i := 1; i < len(vs); i++ {
		if vs[i] != vs[0] {
			alt = i
			break
		}
	}
	if alt < 0 {
		return choice{verdict: vs[0]}
	}
	why := b.tablesWhy(s.node.session())
	if t := b.rc.opts.Tables; t != nil && s.node.session() != 0 {
		allKnown := true
		for i, v := range vs {
			if v.holds || v.watch == "" {
				continue
			}
			watching, known := t.Watches(s.node.session(), ContenderPath(b.path, v.watch))
			if watching {
				return choice{rule: i, verdict: v, evidence: true}
			}
			allKnown = allKnown && known
		}
		// A session without a connection has no watches in any table:
		// its silence there tells nothing.
		if connected, known := t.Connected(s.node.session()); allKnown && connected && known {
			for i, v := range vs {
				if v.holds {
					return choice{rule: i, verdict: v, evidence: true} // it watches none of the nodes it would wait for
				}
			}
		}
	}
	note := fmt.Sprintf("%s %s: zkx cannot tell whether it runs as %s or as %s (%s); shown as the first, by which it would %s; as the second it would %s",
		s.format, s.node.Name, s.rules[0].view, s.rules[alt].view, why, vs[0].text(), vs[alt].text())
	return choice{verdict: vs[0], note: note}
}

// text says what a verdict means in a sentence.
func (v verdict) text() string {
	switch {
	case v.fails != "":
		return "fail: " + v.fails
	case v.holds:
		return "hold the lock"
	}
	return "wait for " + v.watch
}

// does says what a verdict means, after a subject.
func (v verdict) does() string {
	switch {
	case v.fails != "":
		return "fails: " + v.fails
	case v.holds:
		return "holds the lock"
	}
	return "waits for " + BareName(v.watch)
}

// brokenText is the warning for more holders than the lock lets in: two
// holders of which one is exclusive (a mutex holder, a writer). "" when
// the holders may share the lock.
func brokenText(holders []Contender) string {
	exclusive := false
	for _, h := range holders {
		exclusive = exclusive || h.Kind != "read"
	}
	if len(holders) < 2 || !exclusive {
		return ""
	}
	var who []string
	for _, h := range holders {
		who = append(who, roleName(h))
	}
	return fmt.Sprintf("%s holders: mutual exclusion is broken: %s each believe they hold the lock", countWord(len(holders)), strings.Join(who, " and "))
}

func countWord(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	if n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}

// recMixedBlindChecks bounds the waiters whose blind spots a mixed lock's
// warnings look for.
const recMixedBlindChecks = 64

// warnMixed says what goes wrong where contenders of several libraries
// share a lock: which library does not count which other one's nodes
// queued before its own (judged pair by pair by the library's own rule),
// and, for each waiter that does not, that it will take the lock while
// that node may still hold. Libraries that see each other in sequence
// order need no warning: the format says mixed.
func (b *recipeBuilder) warnMixed(js []contenderVerdict, children []string) {
	members := map[string]bool{}
	for _, j := range js {
		members[j.contender.node.Name] = true
	}
	var others []string // children that are not lock nodes
	for _, c := range children {
		if !members[c] {
			others = append(others, c)
		}
	}
	type blindSpot struct{ blind, before contenderVerdict }
	var spots []blindSpot
	for i, j := range js {
		if j.verdict.fails != "" || i >= recMixedBlindChecks {
			continue
		}
		for _, before := range js[:i] {
			if before.contender.format == j.contender.format {
				continue
			}
			pair := append(append([]string{}, others...), before.contender.node.Name, j.contender.node.Name)
			if j.rule.decide(pair, j.contender.node.Name).holds {
				spots = append(spots, blindSpot{j, before})
				break
			}
		}
	}
	if len(spots) == 0 {
		return
	}
	counts := map[string]int{}
	var order []string
	for _, j := range js {
		if counts[j.contender.format] == 0 {
			order = append(order, j.contender.format)
		}
		counts[j.contender.format]++
	}
	var parts, blind []string
	for _, f := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[f], f))
	}
	seen := map[string]bool{}
	for _, sp := range spots {
		if v := sp.blind.rule.view; !seen[v] && sp.blind.rule.blind != "" {
			seen[v] = true
			blind = append(blind, v+" "+sp.blind.rule.blind)
		}
	}
	text := fmt.Sprintf("mixed layouts: %s contenders in one queue (the server numbers every child of a directory in one sequence), but not every library counts the others' nodes", strings.Join(parts, " and "))
	if len(blind) > 0 {
		text += ": " + strings.Join(blind, "; ")
	}
	b.warnf("%s", text)
	for _, sp := range spots {
		if sp.blind.verdict.holds {
			continue // a holder: brokenText names it when the other holds too
		}
		unless := ""
		if !sp.blind.known {
			unless = " (if it runs as " + sp.blind.rule.view + ", its library's default)"
		}
		b.warnf("%s waiter %s%s does not count %s %s, queued before it: once what it waits for goes, it takes the lock even while %s holds",
			sp.blind.contender.format, b.who(sp.blind.shown), unless, sp.before.contender.format, sp.before.contender.node.Name, sp.before.contender.node.Name)
	}
}

// warnKazooReaders warns about waiting Kazoo readers whose writer is
// queued after them: Kazoo 2.8's ReadLock waits for the highest writer in
// the directory rather than the nearest one below it (python-zk/kazoo#649),
// so it waits for a writer that waits for it.
func (b *recipeBuilder) warnKazooReaders(js []contenderVerdict) {
	seqOf := map[string]int32{}
	for _, j := range js {
		seqOf[j.contender.node.Name] = j.contender.node.Seq
	}
	for _, j := range js {
		if j.contender.node.Kind != kindKazooRead || j.contender.format != recFormatKazoo || j.verdict.holds || j.verdict.watch == "" {
			continue
		}
		if s, ok := seqOf[j.verdict.watch]; ok && s > j.contender.node.Seq {
			b.warnf("reader %s waits with writer %s queued behind it: Kazoo 2.8's ReadLock waits for the highest writer (python-zk/kazoo#649) and deadlocks here", j.contender.node.Name, j.verdict.watch)
		}
	}
}

// nextOf is who holds once holder's node is deleted: the waiters watching
// it whose rule then finds nothing before them.
func nextOf(js []contenderVerdict, holder string, children []string) []string {
	after := without(children, holder)
	var next []string
	for _, j := range js {
		if !j.verdict.holds && j.verdict.watch == holder && j.rule.decide(after, j.contender.node.Name).holds {
			next = append(next, j.contender.node.Name)
		}
	}
	return next
}

func without(names []string, drop string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

// handovers says, for each holder, what happens when its node is deleted:
// the waiters watching it wake; each takes the lock if its rule then finds
// nothing before it, else watches another node.
func handovers(l *Lock, js []contenderVerdict, children []string) map[string]string {
	out := map[string]string{}
	for _, h := range l.Holders {
		after := without(children, h.Node)
		var takes, waits []string
		for _, j := range js {
			if j.verdict.holds || j.verdict.watch != h.Node {
				continue
			}
			v := j.rule.decide(after, j.contender.node.Name)
			who := j.shown.Name()
			switch {
			case v.holds:
				takes = append(takes, who)
			default:
				waits = append(waits, fmt.Sprintf("%s wakes and then %s", who, v.does()))
			}
		}
		var others []string
		for _, o := range l.Holders {
			if o.Node != h.Node {
				others = append(others, o.Name())
			}
		}
		var text string
		switch {
		case len(takes) == 1:
			text = takes[0] + " takes over: its watch on this node fires, and by its library's rule nothing is before it then"
		case len(takes) > 1:
			text = strings.Join(takes, " and ") + " take over: their watches on this node fire, and by their libraries' rules nothing is before them then"
		case len(waits) > 0:
			text = "nobody at once: " + strings.Join(waits, "; ")
		case len(l.Waiters) == 0 && len(others) == 0:
			text = "nobody waits: the lock is free"
		case len(l.Waiters) == 0:
			text = "nobody waits"
		default:
			text = "nobody wakes: no waiter watches this node"
		}
		if len(takes) > 0 && len(waits) > 0 {
			text += "; " + strings.Join(waits, "; ")
		}
		if len(others) > 0 {
			text += "; " + strings.Join(others, " and ") + " still holds"
		}
		out[h.Node] = text
	}
	return out
}

// Handover says what happens when the holder's node is deleted, by the
// model: who takes over (the waiters whose watch fires and whose library
// then finds nothing before them), or why nobody does. "" for a node that
// is not a holder's.
func (l *Lock) Handover(node string) string { return l.handovers[node] }

// Handover says what happens when the leader's node is deleted: the
// candidate watching it leads (every election recognised is a chain).
func (e *Election) Handover(node string) string {
	if e.Leader == nil || e.Leader.Node != node {
		return ""
	}
	for _, c := range e.Candidates {
		if c.WaitsFor == node {
			if c.Node == "" {
				return fmt.Sprintf("one of the %d sessions watching it, whichever creates it first", len(e.Candidates))
			}
			return c.Name() + " takes over: its watch on this node fires, and nothing is before it then"
		}
	}
	if len(e.Candidates) == 0 {
		return "nobody is in line: the election has no leader until someone stands"
	}
	return "nobody wakes: no candidate watches this node"
}
