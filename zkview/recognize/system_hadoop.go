package recognize

import (
	"bytes"
	"context"
	"fmt"
	"path"

	"github.com/zkx-dev/zkx/zkview/decode"
)

// The Hadoop HA elector (hadoop-common ActiveStandbyElector.java), used by
// HDFS's ZKFC (under ha.zookeeper.parent-znode, /hadoop-ha/<nameservice>)
// and YARN's ResourceManager (/yarn-leader-election/<cluster id>):
//
//	ActiveStandbyElectorLock  ephemeral, the active's bytes: the lock the
//	                          standbys race for, each watching it
//	ActiveBreadCrumb          persistent, the last active's bytes: who to
//	                          fence on failover
//
// HDFS writes hadoop.hdfs.ActiveNodeInfo (HAZKInfo.proto: nameserviceId,
// namenodeId, hostname, port, zkfcPort), YARN hadoop.yarn.ActiveRMInfoProto
// (clusterId, rmId).
const (
	hadoopLock       = "ActiveStandbyElectorLock"
	hadoopBreadCrumb = "ActiveBreadCrumb"
)

var hadoopSystem = systemRecognizer{
	name: "hadoop-ha",
	candidate: func(d listedDir) bool {
		b := base(d.path)
		return len(d.names) == 0 && (b == hadoopLock || b == hadoopBreadCrumb)
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		return rc.hadoopElector(ctx, path.Dir(d.path))
	},
}

// hadoopActive is what an elector's bytes say.
type hadoopActive struct {
	system, role string
	text         string // "nn1 at namenode-1:8020 (ns1)"
}

// hadoopParse reads ActiveNodeInfo (HDFS: it has a hostname) or
// ActiveRMInfoProto (YARN).
func hadoopParse(data []byte) (hadoopActive, bool) {
	msg, err := decode.ParseProtobuf(data)
	if err != nil || len(msg) == 0 {
		return hadoopActive{}, false
	}
	if host, ok := msg.String(3); ok {
		ns, _ := msg.String(1)
		id, _ := msg.String(2)
		port, _ := msg.Uint(4)
		return hadoopActive{"hdfs", "active-namenode", fmt.Sprintf("%s at %s:%d (%s)", id, host, int32(port), ns)}, true
	}
	cluster, ok1 := msg.String(1)
	rm, ok2 := msg.String(2)
	if !ok1 && !ok2 {
		return hadoopActive{}, false
	}
	return hadoopActive{"yarn", "active-resourcemanager", fmt.Sprintf("%s (%s)", rm, cluster)}, true
}

// hadoopElector reads the elector in dir: the lock's owner leads, the
// sessions watching the lock are the standbys, and the breadcrumb is
// checked against the lock.
func (rc *recognizer) hadoopElector(ctx context.Context, dir string) (Recipe, bool, error) {
	lockPath := path.Join(dir, hadoopLock)
	lockData, lockStat, err := rc.get(ctx, lockPath)
	if err != nil {
		return nil, true, err
	}
	crumb, crumbStat, err := rc.get(ctx, path.Join(dir, hadoopBreadCrumb))
	if err != nil {
		return nil, true, err
	}
	var active, last hadoopActive
	var okActive, okLast bool
	if lockStat != nil {
		active, okActive = hadoopParse(lockData)
	}
	if crumbStat != nil {
		last, okLast = hadoopParse(crumb)
	}
	if !okActive && !okLast {
		return nil, false, nil
	}
	sys := active
	if !okActive {
		sys = last
	}
	e := &Election{Path: lockPath, Format: "hadoop-ha", Candidates: []Contender{},
		SystemTag: SystemTag{System: sys.system, Role: sys.role, SystemRoot: dir}}
	b := rc.build(lockPath)
	if okActive {
		leader := b.holder(childNode{childName: childName{Name: lockPath}, data: lockData, stat: lockStat}, lockPath, "active", false)
		leader.Data = active.text
		e.Leader = &leader
		e.Candidates = nonNilContenders(rc.watchersOf(lockPath, lockStat.EphemeralOwner))
		if lockStat.EphemeralOwner == 0 {
			b.warnf("%s is not ephemeral: nothing releases it when the active goes", hadoopLock)
		}
	} else {
		b.warnf("no active: nobody holds %s (the last active was %s)", hadoopLock, last.text)
	}
	switch {
	case okActive && !okLast && crumbStat == nil:
		b.warnf("no %s: the active has not written it, so a failover would not know whom to fence", hadoopBreadCrumb)
	case okActive && okLast && !bytes.Equal(lockData, crumb):
		b.warnf("%s names %s but the lock is held by %s: the last active has not been fenced (or fencing failed)", hadoopBreadCrumb, last.text, active.text)
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}
