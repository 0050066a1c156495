package recognize

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/zkx-dev/zkx/zkview/decode"
)

// HBase, as hbase-client ZNodePaths.java lays it out under
// zookeeper.znode.parent (/hbase):
//
//	master                ephemeral: the active master (hbase.pb.Master)
//	backup-masters/<sn>   ephemeral: masters waiting to take over (the candidates)
//	rs/<sn>               ephemeral: live region servers (RegionServerInfo)
//	meta-region-server    where hbase:meta is (MetaRegionServer)
//	table-lock/<table>/read-SEQ, write-SEQ   HBase 1.x table locks (TableLock)
//
// <sn> is a ServerName, "host,port,startcode". Every value is in HBase's
// framing (decode.ParseHBaseFrame) around a protocol buffer declared in
// ZooKeeper.proto and HBase.proto.
const hbaseSystemName = "hbase"

var hbaseSystem = systemRecognizer{
	name: hbaseSystemName,
	candidate: func(d listedDir) bool {
		b := base(d.path)
		return (b == "master" && len(d.names) == 0) || b == "backup-masters" || b == "rs" || parent(d.path) == "table-lock"
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		switch b := base(d.path); {
		case b == "master":
			return rc.hbaseMaster(ctx, path.Dir(d.path), true)
		case b == "backup-masters":
			return rc.hbaseMaster(ctx, path.Dir(d.path), false)
		case b == "rs":
			return rc.hbaseRegionServers(ctx, d)
		}
		return rc.hbaseTableLock(ctx, d)
	},
}

// hbaseServer reads a framed value whose message holds a ServerName in
// field 1 (Master, MetaRegionServer): "host:port".
func hbaseServer(data []byte) (string, bool) {
	f, ok := decode.ParseHBaseFrame(data)
	if !ok {
		return "", false
	}
	msg, err := decode.ParseProtobuf(f.Message)
	if err != nil {
		return "", false
	}
	sn, ok := msg.Message(1)
	if !ok {
		return "", false
	}
	host, ok := sn.String(1)
	if !ok {
		return "", false
	}
	port, _ := sn.Uint(2)
	return fmt.Sprintf("%s:%d", host, port), true
}

// hbaseServerNameText turns a ServerName znode name "host,port,start" into
// "host:port".
func hbaseServerNameText(name string) (string, bool) {
	parts := strings.Split(name, ",")
	if len(parts) != 3 || parts[0] == "" || !recIsDigits(parts[1]) || !recIsDigits(parts[2]) {
		return "", false
	}
	return parts[0] + ":" + parts[1], true
}

// hbaseMaster reads the master election under root: the active master
// (root/master) leads, the backup masters (root/backup-masters/*) are the
// candidates, each watching the master node. fromMaster: asked about the
// master node itself (else about backup-masters).
func (rc *recognizer) hbaseMaster(ctx context.Context, root string, fromMaster bool) (Recipe, bool, error) {
	masterPath := path.Join(root, "master")
	data, stat, err := rc.get(ctx, masterPath)
	if err != nil {
		return nil, true, err
	}
	active, framed := "", false
	if stat != nil {
		active, framed = hbaseServer(data)
	}
	if fromMaster && !framed {
		return nil, false, nil // not HBase's
	}
	backupDir := path.Join(root, "backup-masters")
	names, _, err := rc.list(ctx, backupDir)
	if err != nil {
		return nil, true, err
	}
	if !framed && len(names) == 0 {
		return nil, false, nil
	}
	e := &Election{Path: masterPath, Format: hbaseSystemName, Candidates: []Contender{},
		SystemTag: SystemTag{System: hbaseSystemName, Role: "active-master", SystemRoot: root}}
	b := rc.build(masterPath)
	if stat != nil && framed {
		leader := b.holder(childNode{childName: childName{Name: masterPath}, data: data, stat: stat}, masterPath, "active master", false)
		leader.Data = active
		e.Leader = &leader
		if stat.EphemeralOwner == 0 {
			b.warnf("master is a persistent node: it will not go when the master does")
		}
	} else {
		b.warnf("no active master: %d backup masters wait for one to take over", len(names))
	}
	rns := make([]childName, len(names))
	for i, n := range names {
		rns[i] = childName{Name: n}
	}
	ms, err := rc.readMembers(ctx, backupDir, rns)
	if err != nil {
		return nil, true, err
	}
	for _, m := range ms {
		c := b.waiter(m, path.Join(backupDir, m.Name), masterPath, true)
		if s, ok := hbaseServer(m.data); ok {
			c.Data = s
		} else if s, ok := hbaseServerNameText(m.Name); ok {
			c.Data = s
		}
		if c.Data == active && active != "" {
			b.warnf("backup master %s is the active master too: a master that lost its node and did not step down", c.Data)
		}
		e.Candidates = append(e.Candidates, c)
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}

// hbaseRegionServers reads rs: the live region servers, and checks that
// hbase:meta is on one of them.
func (rc *recognizer) hbaseRegionServers(ctx context.Context, d listedDir) (Recipe, bool, error) {
	for _, n := range d.names {
		if _, ok := hbaseServerNameText(n.Name); !ok {
			return nil, false, nil // replication's rs/ and others
		}
	}
	root := path.Dir(d.path)
	g, err := rc.group(ctx, d, hbaseSystemName, SystemTag{System: hbaseSystemName, Role: "region-servers", SystemRoot: root},
		func(name string, data []byte) string {
			s, _ := hbaseServerNameText(name)
			if f, ok := decode.ParseHBaseFrame(data); ok {
				if msg, err := decode.ParseProtobuf(f.Message); err == nil {
					if port, ok := msg.Uint(1); ok {
						s += fmt.Sprintf(" · info port %d", int32(port))
					}
					if v, ok := msg.Message(2); ok {
						if ver, ok := v.String(1); ok {
							s += " · " + ver
						}
					}
				}
			}
			return s
		})
	if err != nil {
		return nil, true, err
	}
	if len(d.names) == 0 {
		// An empty rs/ is HBase's only when a master is there too.
		if _, st, err := rc.get(ctx, path.Join(root, "master")); err != nil || st == nil {
			return nil, err != nil, err
		}
	}
	data, stat, err := rc.get(ctx, path.Join(root, "meta-region-server"))
	if err != nil {
		return nil, true, err
	}
	if stat != nil {
		if meta, ok := hbaseServer(data); ok {
			live := false
			for _, m := range g.Members {
				s, _ := hbaseServerNameText(m.Node)
				live = live || s == meta
			}
			if !live {
				g.Warnings = append(g.Warnings, fmt.Sprintf("meta-region-server names %s, which is no live region server: clients cannot find hbase:meta", meta))
			}
		}
	}
	return g, true, nil
}

// hbaseTableLock reads an HBase 1.x table lock (table-lock/<table>):
// read-SEQ and write-SEQ, a read-write lock, each node's TableLock naming
// its owner and purpose.
func (rc *recognizer) hbaseTableLock(ctx context.Context, d listedDir) (Recipe, bool, error) {
	r, err := rc.recognizeLayout(ctx, d, dirHint{})
	if err != nil || r == nil {
		return r, err != nil, err
	}
	l, ok := r.(*Lock)
	if !ok {
		return nil, false, nil
	}
	l.Format = hbaseSystemName
	l.SystemTag = SystemTag{System: hbaseSystemName, Role: "table-lock", SystemRoot: up(d.path, 2)}
	for _, cs := range [][]Contender{l.Holders, l.Waiters} {
		for i := range cs {
			data, _, err := rc.get(ctx, ContenderPath(l.Path, cs[i].Node))
			if err == nil {
				cs[i].Data = hbaseTableLockText(data, cs[i].Data)
			}
		}
	}
	return l, true, nil
}

// hbaseTableLockText shows a TableLock: its owner and purpose.
func hbaseTableLockText(data []byte, otherwise string) string {
	f, ok := decode.ParseHBaseFrame(data)
	if !ok {
		return otherwise
	}
	msg, err := decode.ParseProtobuf(f.Message)
	if err != nil {
		return otherwise
	}
	var parts []string
	if owner, ok := msg.Message(2); ok {
		host, _ := owner.String(1)
		port, _ := owner.Uint(2)
		parts = append(parts, fmt.Sprintf("%s:%d", host, port))
	}
	if purpose, ok := msg.String(5); ok {
		parts = append(parts, purpose)
	}
	if len(parts) == 0 {
		return otherwise
	}
	return strings.Join(parts, " · ")
}
