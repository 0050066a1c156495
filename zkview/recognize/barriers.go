package recognize

import "context"

// barrier recognises a Curator DistributedBarrier (and zkx's Barrier): a
// persistent node, set while it exists, which waiters watch with exists.
// Any leaf could be one, so only a leaf whose name contains "barrier" is
// taken for one.
func (rc *recognizer) barrier(ctx context.Context, d listedDir) (Recipe, error) {
	if !isBarrierName(d.path) || (d.stat != nil && d.stat.EphemeralOwner != 0) {
		return nil, nil
	}
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil || stat.EphemeralOwner != 0 || stat.NumChildren != 0 {
		return nil, err
	}
	format := recFormatCurator
	if isZkxIdentity(data) {
		format = recFormatZkx
	}
	return &Barrier{Path: d.path, Format: format, Kind: recBarrier, Warnings: []string{}}, nil
}

// doubleBarrier recognises a double barrier: Curator's
// DistributedDoubleBarrier (and zkx's) names each participant by a UUID,
// Kazoo's DoubleBarrier by a uuid4 hex; each is ephemeral, and "ready"
// (persistent) exists once enough have entered. Until then every
// participant waits for ready to be created (an exists watch). Nodes
// holding JSON (a ServiceDiscovery registration) are not participants.
func (rc *recognizer) doubleBarrier(ctx context.Context, d listedDir, members, foreign []childName) (Recipe, error) {
	ready := false
	var parts []childName
	for _, n := range members {
		if n.Kind == kindReady {
			ready = true
		} else {
			parts = append(parts, n)
		}
	}
	ms, foreign, err := rc.readEphemeral(ctx, d.path, parts, foreign)
	if err != nil {
		return nil, err
	}
	// Curator's ServiceDiscovery registers instances as ephemeral nodes
	// named by a UUID too, holding JSON: those are not participants.
	kept := ms[:0]
	for _, m := range ms {
		if len(m.data) > 0 && m.data[0] == '{' {
			foreign = append(foreign, m.childName)
		} else {
			kept = append(kept, m)
		}
	}
	if ms = kept; len(ms) == 0 && !ready {
		return nil, nil
	}
	br := &Barrier{Path: d.path, Format: recFormatCurator, Kind: recDoubleBarrier, Ready: ready, Participants: []Contender{}}
	kazoo := false
	for _, m := range ms {
		kazoo = kazoo || m.format() == recFormatKazoo
	}
	if kazoo {
		br.Format = recFormatKazoo
	} else {
		br.Format = dataFormat(ms, recFormatCurator)
	}
	b := rc.build(d.path)
	for _, m := range ms {
		var c Contender
		if ready {
			c = b.contender(m, m.Name)
			b.checkConnected(c, "participant")
		} else {
			c = b.waiter(m, m.Name, "ready", true)
			b.checkConnected(c, "participant")
		}
		br.Participants = append(br.Participants, c)
	}
	b.checkForeign(foreign, "", br.Format+" double barrier")
	br.Warnings = b.warn
	return br, nil
}
