package recognize

import (
	"fmt"
	"regexp"
	"strings"
)

// recAheadSteps bounds the releases warnAhead plays forward.
const recAheadSteps = 256

// seqSuffix is the sequence the server appends to a sequential node's
// name: %010d of a signed 32-bit counter, ten characters with the sign of
// a negative one ("-000000001"), so the "-" of "lock-0000000001" is not it.
var seqSuffix = regexp.MustCompile(`(?:\d{10}|-\d{9})$`)

// warnAhead plays a mixed mutex's queue forward, as it will run if one
// more contender of each library present joins now and nothing else
// changes: the holder releases, every waiter judges again by its own
// library's rule over the nodes left, a holder holds until it releases.
// At the first moment two would hold at once it names them and the rule
// that lets them: a queue that is sound now but cannot stay sound (a
// Curator contender joining a lock whose Kazoo contenders count Curator's
// nodes sorts their names after its own, and holds beside one of them
// once the node before it goes) is named before it breaks.
func (b *recipeBuilder) warnAhead(js []contenderVerdict, children []string) {
	type runner struct {
		name, format string
		rule         lockRule
		holds        bool
		newcomer     bool
	}
	var rs []runner
	next := int32(-1 << 31)
	holding := 0
	for _, j := range js {
		if j.verdict.fails != "" {
			return // a library that cannot read the queue: warned already
		}
		rs = append(rs, runner{name: j.contender.node.Name, format: j.contender.format, rule: j.rule, holds: j.verdict.holds})
		if j.verdict.holds {
			holding++
		}
		if j.contender.node.HasSeq && j.contender.node.Seq >= next {
			next = j.contender.node.Seq + 1
		}
	}
	if holding > 1 || next <= 0 {
		return // broken already (brokenText says so), or no sequence to go on from
	}
	seen := map[string]bool{}
	for _, j := range js {
		if seen[j.rule.view] {
			continue
		}
		seen[j.rule.view] = true
		loc := seqSuffix.FindStringIndex(j.contender.node.Name)
		if loc == nil {
			continue
		}
		name := j.contender.node.Name[:loc[0]] + fmt.Sprintf("%010d", next)
		next++
		rs = append(rs, runner{name: name, format: j.contender.format, rule: j.rule, newcomer: true})
	}
	alive := map[string]bool{}
	for _, c := range children {
		alive[c] = true
	}
	for _, r := range rs {
		alive[r.name] = true
	}
	var released []string
	for step := 0; step < recAheadSteps; step++ {
		var left []string
		for _, c := range children {
			if alive[c] {
				left = append(left, c)
			}
		}
		for _, r := range rs {
			if r.newcomer && alive[r.name] {
				left = append(left, r.name)
			}
		}
		var holders []int
		for i := range rs {
			if !alive[rs[i].name] {
				continue
			}
			if !rs[i].holds && rs[i].rule.decide(left, rs[i].name).holds {
				rs[i].holds = true
			}
			if rs[i].holds {
				holders = append(holders, i)
			}
		}
		switch {
		case len(holders) == 0:
			return // nobody can go on: not this warning's business
		case len(holders) > 1:
			var who, why []string
			for _, i := range holders {
				r := rs[i]
				if r.newcomer {
					who = append(who, fmt.Sprintf("a new %s contender joining now (%s)", r.format, r.rule.view))
				} else {
					who = append(who, r.format+" "+r.name)
				}
				if r.rule.blind != "" && !strings.Contains(strings.Join(why, "; "), r.rule.view) {
					why = append(why, r.rule.view+" "+r.rule.blind)
				}
			}
			when := "at once"
			if len(released) > 0 {
				when = "once " + strings.Join(released, ", then ") + " released"
			}
			text := fmt.Sprintf("mixed layouts cannot stay safe: %s would both hold the lock %s", strings.Join(who, " and "), when)
			if len(why) > 0 {
				text += ": " + strings.Join(why, "; ")
			}
			b.warnf("%s", text)
			return
		}
		released = append(released, rs[holders[0]].name)
		alive[rs[holders[0]].name] = false
	}
}
