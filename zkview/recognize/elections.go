package recognize

// election builds an election from its members, sorted by sequence
// number: Curator's LeaderLatch (and zkx's Election), "_c_<uuid>-latch-SEQ",
// and ZooKeeper's LeaderElectionSupport, "n_SEQ". In both the lowest node
// leads and every other candidate watches its immediate predecessor
// (getData for Curator, exists for ZooKeeper's recipe). Candidates are the
// nodes behind the leader, in order.
func (rc *recognizer) election(d listedDir, fam layoutFamily, ms []childNode, foreign []childName) *Election {
	e := &Election{Path: d.path, Format: familyTable[fam].format, Candidates: []Contender{}}
	if fam == familyCuratorLatch {
		e.Format = dataFormat(ms, recFormatCurator)
	}
	b := rc.build(d.path)
	for i, m := range ms {
		if i == 0 {
			leader := b.holder(m, m.Name, "leader", false)
			e.Leader = &leader
			continue
		}
		e.Candidates = append(e.Candidates, b.waiter(m, m.Name, ms[i-1].Name, true))
	}
	b.checkOrphans(ms, "")
	b.checkForeign(foreign, "", e.Format+" election")
	b.checkWrap(namesOf(ms), "")
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e
}
