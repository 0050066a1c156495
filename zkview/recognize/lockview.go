package recognize

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/zkx-dev/zkx/internal/seqnode"
)

// What each library believes.
//
// Every lock library decides from the children of the lock directory
// whether its own node holds and, if not, which node it watches. They do
// not decide alike: each sees some of the other libraries' nodes and not
// others, and orders what it sees its own way. Where contenders of several
// libraries share a directory (one queue: the server numbers every child
// of a parent in one sequence), each contender is judged by its own
// library's rule, as that library's source has it. Every contender whose
// rule says it holds is a holder.
//
// Each rule takes the directory's children as listed (every name, whatever
// its layout) and our node's name.

// verdict is what one library concludes for its node.
type verdict struct {
	holds bool
	// watch is the child the node waits for ("" when it holds).
	watch string
	// fails is why the library's acquire fails instead of deciding (set by
	// go-zookeeper on a child whose sequence it cannot parse).
	fails string
}

// lockRule is one library's decision.
type lockRule struct {
	// view names the library and its configuration as a reader knows it:
	// "Curator InterProcessMutex", "Kazoo Lock (extra_lock_patterns=…)".
	view string
	// blind says what the library does not see or orders apart, for the
	// mixed-layout warning: "sees only __lock__ names"; "" when it sees
	// every lock node in sequence order.
	blind  string
	decide func(children []string, self string) verdict
}

// curatorMutexRule is Curator's InterProcessMutex (and LeaderSelector,
// and the internal mutex of InterProcessSemaphoreV2): LockInternals sorts
// every child by StandardLockInternalsDriver.fixForSorting (the text after
// the last "lock-", else the whole name) as Java compares strings, and
// StandardLockInternalsDriver.getsTheLock holds when our index is below
// maxLeases (1), else watches (getData) the child just before us.
func curatorMutexRule() lockRule {
	return lockRule{
		view:  "Curator InterProcessMutex",
		blind: `sorts by the text after "lock-" (StandardLockInternalsDriver.fixForSorting): names without it go after its own, whatever their sequence`,
		decide: func(children []string, self string) verdict {
			sorted := curatorSorted(children, func(s string) string { return curatorFix(s, "lock-") })
			return indexRule(sorted, self)
		},
	}
}

// curatorWriterRule is InterProcessReadWriteLock's write lock: the
// mutex's rule over every child sorted by the text after "__READ__" or
// "__WRIT__" (its SortingLockInternalsDriver).
func curatorWriterRule() lockRule {
	return lockRule{
		view:  "Curator InterProcessReadWriteLock write lock",
		blind: `sorts by the text after "__READ__" or "__WRIT__": names without them go after its own, whatever their sequence`,
		decide: func(children []string, self string) verdict {
			return indexRule(curatorSorted(children, curatorRWFix), self)
		},
	}
}

// curatorReaderRule is InterProcessReadWriteLock's read lock
// (readLockPredicate): over the same sort, it holds unless a child
// containing "__WRIT__" comes before it, else watches the first such.
// Other names (another library's writers) do not stop it.
func curatorReaderRule() lockRule {
	return lockRule{
		view:  "Curator InterProcessReadWriteLock read lock",
		blind: `counts as writers only names containing "__WRIT__", and sorts by the text after "__READ__" or "__WRIT__"`,
		decide: func(children []string, self string) verdict {
			firstWriter := ""
			for _, c := range curatorSorted(children, curatorRWFix) {
				switch {
				case strings.Contains(c, "__WRIT__"):
					if firstWriter == "" {
						firstWriter = c
					}
				case strings.HasPrefix(c, self):
					if firstWriter == "" {
						return verdict{holds: true}
					}
					return verdict{watch: firstWriter}
				}
			}
			return verdict{fails: "its node is not among the children"}
		},
	}
}

// indexRule holds at index 0 of sorted and watches the child before
// otherwise.
func indexRule(sorted []string, self string) verdict {
	for i, c := range sorted {
		if c == self {
			if i == 0 {
				return verdict{holds: true}
			}
			return verdict{watch: sorted[i-1]}
		}
	}
	return verdict{fails: "its node is not among the children"}
}

// curatorFix is StandardLockInternalsDriver.standardFixForSorting.
func curatorFix(s, lockName string) string {
	if i := strings.LastIndex(s, lockName); i >= 0 {
		return s[i+len(lockName):]
	}
	return s
}

// curatorRWFix is InterProcessReadWriteLock's SortingLockInternalsDriver.
func curatorRWFix(s string) string { return curatorFix(curatorFix(s, "__READ__"), "__WRIT__") }

// curatorSorted sorts children as Collections.sort does with Curator's
// comparator: stable, keys compared as Java's String.compareTo (UTF-16
// code units).
func curatorSorted(children []string, key func(string) string) []string {
	out := append([]string{}, children...)
	sort.SliceStable(out, func(i, j int) bool { return javaLess(key(out[i]), key(out[j])) })
	return out
}

// javaLess is Java's String.compareTo(a, b) < 0.
func javaLess(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// kazooRule is Kazoo's Lock, WriteLock and ReadLock (kazoo/recipe/lock.py,
// Lock._get_predecessor): the contenders are the children matching
// "(?:pattern|…)(-?\d{10})$", the patterns being the class's
// _EXCLUDE_NAMES (Lock and ReadLock: __lock__; WriteLock: __lock__ and
// __rlock__) and extra_lock_patterns; they are sorted by the matched
// sequence text; our predecessor is the contender just before our own
// match. A ReadLock's own node (__rlock__) does not match its patterns, so
// its predecessor is the last contender of all, the highest writer, even
// one queued after it (python-zk/kazoo#649, Kazoo 2.8); it holds when there
// is none.
func kazooRule(class string, patterns, extra []string) lockRule {
	all := append(append([]string{}, patterns...), extra...)
	quoted := make([]string, len(all))
	for i, p := range all {
		quoted[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile("(?:" + strings.Join(quoted, "|") + `)(-?\d{10})$`)
	view := "Kazoo " + class
	blind := "sees only " + strings.Join(patterns, " and ") + " names"
	if len(extra) > 0 {
		view += " with extra_lock_patterns=" + pyTuple(extra)
		blind = ""
	}
	return lockRule{
		view:  view,
		blind: blind,
		decide: func(children []string, self string) verdict {
			type match struct{ name, seq string }
			var ms []match
			selfMatched := false
			for _, c := range children {
				// Kazoo's regex: \d is any Unicode digit in Python 3; node
				// names are ASCII, where Go's \d agrees.
				if m := re.FindStringSubmatch(c); m != nil {
					ms = append(ms, match{c, m[1]})
					selfMatched = selfMatched || c == self
				}
			}
			sort.SliceStable(ms, func(i, j int) bool { return ms[i].seq < ms[j].seq })
			pred := ""
			for _, m := range ms {
				if selfMatched && m.name == self {
					break
				}
				pred = m.name
			}
			if pred == "" {
				return verdict{holds: true}
			}
			return verdict{watch: pred}
		},
	}
}

// pyTuple writes patterns as a Python tuple of strings: ("-lock-",).
func pyTuple(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = strconv.Quote(p)
	}
	if len(q) == 1 {
		return "(" + q[0] + ",)"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// goZooKeeperRule is go-zookeeper's zk.Lock (v1.0.4, lock.go): every
// child's sequence is parsed by parseSeq (the text after the last
// "lock-", else after the last "__", as an int); a child it cannot parse
// fails the acquire (and leaves our node behind). It holds when its
// sequence is the lowest, else watches (GetW) the child with the highest
// sequence below its own, starting the search from -1.
func goZooKeeperRule() lockRule {
	parse := func(name string) (int, error) {
		parts := strings.Split(name, "lock-")
		if len(parts) == 1 {
			parts = strings.Split(name, "__")
		}
		return strconv.Atoi(parts[len(parts)-1])
	}
	return lockRule{
		view:  "go-zookeeper zk.Lock",
		blind: "",
		decide: func(children []string, self string) verdict {
			seq, err := parse(self)
			if err != nil {
				return verdict{fails: "it cannot parse its own node's sequence"}
			}
			lowest, prevSeq, prev := seq, -1, ""
			for _, c := range children {
				s, err := parse(c)
				if err != nil {
					return verdict{fails: "it cannot parse the sequence of " + c + " (lock.go parseSeq), so Lock returns an error and leaves its node"}
				}
				lowest = min(lowest, s)
				if s < seq && s > prevSeq {
					prevSeq, prev = s, c
				}
			}
			if seq == lowest {
				return verdict{holds: true}
			}
			return verdict{watch: prev}
		},
	}
}

// zkWriteLockRule is ZooKeeper's own WriteLock recipe
// (zookeeper-recipes-lock, WriteLock.LockZooKeeperOperation and ZNodeName):
// every child, as dir + "/" + name, is read as prefix and sequence around
// its last '-' (a doubled '-' is a negative number); children with a
// sequence come first, by sequence then prefix, those without after, by
// prefix. It holds when nothing sorts below its node, else watches
// (exists) the greatest child below it.
func zkWriteLockRule(dir string) lockRule {
	type zname struct {
		name, prefix string
		seq          int32
		hasSeq       bool
	}
	parse := func(name string) zname {
		full := dir + "/" + name
		z := zname{name: name}
		i := strings.LastIndexByte(full, '-')
		if i < 0 {
			z.prefix = full
			return z
		}
		if i > 0 && full[i-1] == '-' {
			i--
		}
		z.prefix = full[:i]
		if v, err := strconv.ParseInt(full[i+1:], 10, 32); err == nil {
			z.seq, z.hasSeq = int32(v), true
		}
		return z
	}
	less := func(a, b zname) bool {
		switch {
		case a.hasSeq && b.hasSeq:
			if a.seq != b.seq {
				return a.seq < b.seq
			}
			return javaLess(a.prefix, b.prefix)
		case a.hasSeq != b.hasSeq:
			return a.hasSeq
		}
		return javaLess(a.prefix, b.prefix)
	}
	return lockRule{
		view:  "ZooKeeper WriteLock recipe",
		blind: "orders by the number after the last '-': names without one go after its own",
		decide: func(children []string, self string) verdict {
			me := parse(self)
			var below *zname
			for _, c := range children {
				z := parse(c)
				if c == self || !less(z, me) {
					continue
				}
				if below == nil || less(*below, z) {
					below = &z
				}
			}
			if below == nil {
				return verdict{holds: true}
			}
			return verdict{watch: below.name}
		},
	}
}

// zkxRule is zkx's own recipes (recipes/line.go, names.go): the contenders
// are the children whose name has one of markers followed by a sequence
// (seqnode.After), in sequence order. A Mutex, and an RWMutex's writer, hold
// when nothing is below and watch the node just below (chainRule); an
// RWMutex's reader holds when no writer is below and watches the lowest
// writer below (readerRule).
func zkxRule(view string, markers []string, writer string, reader bool) lockRule {
	return lockRule{
		view:  view,
		blind: "sees only " + strings.Join(quoteAll(markers), " and ") + " names",
		decide: func(children []string, self string) verdict {
			type c struct {
				name   string
				seq    int32
				marker string
			}
			var cs []c
			for _, name := range children {
				for _, m := range markers {
					if s, ok := seqnode.After(name, m); ok {
						cs = append(cs, c{name, s, m})
						break
					}
				}
			}
			sort.Slice(cs, func(i, j int) bool {
				if cs[i].seq != cs[j].seq {
					return cs[i].seq < cs[j].seq
				}
				return cs[i].name < cs[j].name
			})
			for i, x := range cs {
				if x.name != self {
					continue
				}
				if reader {
					for _, b := range cs[:i] {
						if b.marker == writer {
							return verdict{watch: b.name}
						}
					}
					return verdict{holds: true}
				}
				if i == 0 {
					return verdict{holds: true}
				}
				return verdict{watch: cs[i-1].name}
			}
			return verdict{fails: "its node is not among the children"}
		},
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// genericRule is a tutorial lock ("lock-SEQ", "node_SEQ", "<host>-W-SEQ"):
// the contenders of its own layouts, by sequence; a mutex or writer holds
// when nothing is below and watches the node just below; a reader holds
// when no writer is below and watches the nearest writer below (ZooKeeper's
// recipe documentation's shared lock).
func genericRule(members map[string]childName, reader bool) lockRule {
	return lockRule{
		view:  "a plain sequential lock",
		blind: "is assumed to see only its own layout",
		decide: func(children []string, self string) verdict {
			var cs []childName
			for _, c := range children {
				if n, ok := members[c]; ok {
					cs = append(cs, n)
				}
			}
			sortBySeq(cs)
			for i, x := range cs {
				if x.Name != self {
					continue
				}
				if !reader {
					if i == 0 {
						return verdict{holds: true}
					}
					return verdict{watch: cs[i-1].Name}
				}
				for j := i - 1; j >= 0; j-- {
					if cs[j].role() == "write" {
						return verdict{watch: cs[j].Name}
					}
				}
				return verdict{holds: true}
			}
			return verdict{fails: "its node is not among the children"}
		},
	}
}
