package introspect

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/netfail"
)

// memberProbe asks one member everything, through its AdminServer when it has
// one, and four-letter words for the rest.
type memberProbe struct {
	member  Member
	timeout time.Duration
	admin   *adminTarget // nil: four-letter words only, unless one is discovered
	opts    Options
	// greeting is srvr's answer, asked of every member at once first
	// (reach.go); adminErr is why the AdminServer presumed to be the
	// member's did not answer, when the member did not either.
	greeting fourLetterAnswer
	adminErr error

	mu       sync.Mutex
	refused  []string
	problems []Problem
	// the two views of the data-watch table, until assembled
	bySession map[int64][]string
	byPath    map[string][]int64
}

// fourLetterOrder is the order zkview asks (and reports) four-letter words in.
var fourLetterOrder = []string{"srvr", "mntr", "cons", "wchc", "wchp", "dump", "conf", "ruok", "isro"}

func (p *memberProbe) problem(cmd string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, Problem{Member: p.member.Addr, Command: cmd, Err: err})
}

func (p *memberProbe) refuse(cmd string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused = append(p.refused, cmd)
}

func (p *memberProbe) run(ctx context.Context) {
	if p.silent() {
		// Asking more would only wait out the same timeout again.
		p.problem("srvr", p.greeting.err)
		m := &p.member
		m.Mode, m.Error, m.NoAnswer = ModeUnreachable, p.greeting.err.Error(), netfail.NoAnswer(p.greeting.err)
		m.TablesFrom = string(ModeUnreachable)
		if p.adminErr != nil {
			var nf *netfail.Error
			if errors.As(p.adminErr, &nf) {
				m.AdminError = nf.Text
			} else {
				m.AdminError = p.adminErr.Error()
			}
		}
		return
	}
	if p.admin != nil {
		p.runAdmin(ctx)
	}
	if p.member.Mode != ModeNotServing {
		p.runFourLetter(ctx)
	}
	if p.admin == nil && p.opts.AdminPort > 0 && p.member.Serving() && p.tablesMissing() {
		if p.admin = p.discoverAdmin(ctx); p.admin != nil {
			p.runAdmin(ctx)
		}
	}
	if p.member.Watches == nil {
		p.member.Watches = newWatchTable(p.bySession, p.byPath)
	}
	if p.member.Mode == "" && p.member.Stats != nil {
		p.member.Mode = p.member.Stats.Mode
	}
	p.member.TablesFrom = p.tablesFrom()
	rank := map[string]int{}
	for i, w := range fourLetterOrder {
		rank[w] = i
	}
	sort.SliceStable(p.refused, func(i, j int) bool { return rank[p.refused[i]] < rank[p.refused[j]] })
}

// ask sends one word and reports whether it answered; a refusal, a
// member not serving and other failures are recorded.
func (p *memberProbe) ask(ctx context.Context, cmd string) (string, bool) {
	text, err := askFourLetter(ctx, p.member.Addr, cmd, p.timeout, p.opts)
	switch {
	case errors.Is(err, errWordRefused):
		p.refuse(cmd)
		return "", false
	case err != nil:
		p.problem(cmd, err)
		return "", false
	}
	return text, true
}

// parsed records a parse failure; a member that stopped serving meanwhile
// is marked so.
func (p *memberProbe) parsed(cmd string, err error) bool {
	if err == nil {
		return true
	}
	if errors.Is(err, errNotServing) {
		p.mu.Lock()
		p.member.Mode, p.member.Error = ModeNotServing, notServingText
		p.mu.Unlock()
		return false
	}
	p.problem(cmd, err)
	return false
}

func (p *memberProbe) runFourLetter(ctx context.Context) {
	m := &p.member
	if g := p.greeting; g.asked && g.err != nil && !errors.Is(g.err, errWordRefused) && m.Stats != nil {
		// Its AdminServer answers, its client port does not: the other
		// words would each wait out the timeout.
		p.problem("srvr", g.err)
		return
	}
	if m.Stats == nil {
		text, err := p.greeting.text, p.greeting.err
		if !p.greeting.asked {
			text, err = askFourLetter(ctx, m.Addr, "srvr", p.timeout, p.opts)
		}
		switch {
		case errors.Is(err, errWordRefused):
			p.refuse("srvr")
		case err != nil:
			// The member did not answer: asking more words would only
			// wait out the same timeout again.
			p.problem("srvr", err)
			m.Mode, m.Error = ModeUnreachable, err.Error()
			return
		default:
			st, err := parseSrvr(text)
			if errors.Is(err, errNotServing) {
				m.Mode, m.Error = ModeNotServing, notServingText
				return
			}
			if p.parsed("srvr", err) {
				m.Stats, m.Mode = &st, st.Mode
			}
		}
	}
	var wg sync.WaitGroup
	run := func(cmd string, skip bool, use func(text string) error) {
		if skip {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if text, ok := p.ask(ctx, cmd); ok {
				p.parsed(cmd, use(text))
			}
		}()
	}
	// Each goroutine writes only its own field of the member.
	run("mntr", m.Monitor != nil, func(text string) (err error) { m.Monitor, err = parseMntr(text); return })
	run("cons", m.Connections != nil, func(text string) (err error) {
		m.Connections, err = parseCons(text)
		m.ConnectionsAt = time.Now()
		return
	})
	run("wchc", m.Watches != nil, func(text string) (err error) { p.bySession, err = parseWchc(text); return })
	run("wchp", m.Watches != nil, func(text string) (err error) { p.byPath, err = parseWchp(text); return })
	run("dump", m.Dump != nil, func(text string) (err error) { m.Dump, err = parseDump(text); return })
	run("conf", m.Conf != nil, func(text string) (err error) { m.Conf, err = parseConf(text); return })
	wg.Wait()
	if m.Mode == ModeNotServing {
		return
	}
	if m.Stats == nil && m.Monitor != nil {
		st := statsFromMonitor(m.Monitor)
		m.Stats, m.Mode = &st, st.Mode
	}
	if m.Stats == nil {
		p.fallbackMode(ctx)
	}
}

// fallbackMode learns what it can of a member whose srvr and mntr did not
// answer: ruok for liveness, isro for read-only.
func (p *memberProbe) fallbackMode(ctx context.Context) {
	m := &p.member
	text, ok := p.ask(ctx, "ruok")
	if !ok || parseRuok(text) != nil {
		if ok {
			p.problem("ruok", parseRuok(text))
		}
		if m.Mode == "" {
			m.Mode = ModeUnknown
		}
		return
	}
	m.Mode = ModeUnknown
	if text, ok := p.ask(ctx, "isro"); ok {
		ro, err := parseIsro(text)
		if p.parsed("isro", err) && ro {
			m.Mode = ModeReadOnly
		}
	}
}

// runAdmin fills the member's tables from its AdminServer.
func (p *memberProbe) runAdmin(ctx context.Context) {
	m := &p.member
	a := p.admin
	var st adminServerStats
	if err := a.client.get(ctx, "server_stats", p.timeout, &st); err != nil {
		p.problem("admin server_stats", err)
		if errors.Is(err, errNotServing) {
			m.Mode, m.Error = ModeNotServing, notServingText
		}
		return
	}
	m.AdminURL = a.client.shown()
	stats := st.stats()
	m.Stats, m.Mode = &stats, stats.Mode
	m.Conf = a.conf
	var wg sync.WaitGroup
	get := func(cmd string, v any, use func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := a.client.get(ctx, cmd, p.timeout, v)
			if err == nil {
				err = use()
			}
			if err != nil {
				p.problem("admin "+cmd, err)
			}
		}()
	}
	var mon map[string]any
	get("monitor", &mon, func() error { m.Monitor = adminFlat(mon); return nil })
	var conns adminConnections
	get("connections", &conns, func() error {
		m.Connections, m.ConnectionsAt = conns.connections(), time.Now()
		return nil
	})
	var watches adminWatches
	get("watches", &watches, func() (err error) { p.bySession, err = watches.table(); return })
	var byPath adminWatchesByPath
	get("watches_by_path", &byPath, func() error {
		p.byPath = map[string][]int64{}
		for path, ids := range byPath.ByPath {
			p.byPath[path] = sortedSessionIDs(ids)
		}
		return nil
	})
	var dump adminDump
	get("dump", &dump, func() (err error) { m.Dump, err = dump.dump(); return })
	wg.Wait()
	m.Watches = newWatchTable(p.bySession, p.byPath)
}
