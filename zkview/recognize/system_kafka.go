package recognize

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Kafka in ZooKeeper mode, as core/src/main/scala/kafka/zk/ZkData.scala
// lays it out under its chroot:
//
//	/controller                 ephemeral, {"version":2,"brokerid":1,"timestamp":…}: the
//	                            controller election; the other brokers watch it
//	/controller_epoch           the controller epoch, as decimal text
//	/brokers/ids/<id>           ephemeral, the broker's registration (endpoints)
//	/brokers/topics/<t>/partitions/<p>/state
//	                            {"controller_epoch","leader","leader_epoch","isr"}
//	/isr_change_notification/isr_change_SEQ, /config/changes/config_change_SEQ,
//	/log_dir_event_notification/log_dir_event_SEQ
//	                            persistent sequential notifications the controller
//	                            consumes (and deletes)
//	/admin/delete_topics/<topic>  topics waiting to be deleted
//	/admin/reassign_partitions    {"version":1,"partitions":[{topic,partition,replicas}]}
const kafkaSystemName = "kafka"

// kafkaQueues are the notification queues: directory (below the root) →
// item prefix and role.
var kafkaQueues = map[string]struct{ prefix, role string }{
	"isr_change_notification":    {"isr_change_", "isr-change"},
	"config/changes":             {"config_change_", "config-change"},
	"log_dir_event_notification": {"log_dir_event_", "log-dir-event"},
}

// kafkaPartitionStates bounds the partition states the controller's
// recognition reads to check epochs and leaders.
const kafkaPartitionStates = 200

var kafkaSystem = systemRecognizer{
	name: kafkaSystemName,
	candidate: func(d listedDir) bool {
		b := base(d.path)
		switch {
		case b == "controller" && len(d.names) == 0:
			return true
		case b == "ids" && parent(d.path) == "brokers":
			return true
		case b == "delete_topics" && parent(d.path) == "admin",
			b == "reassign_partitions" && parent(d.path) == "admin" && len(d.names) == 0:
			return true
		}
		_, ok := kafkaQueueOf(d.path)
		return ok
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		b := base(d.path)
		switch {
		case b == "controller":
			return rc.kafkaController(ctx, d)
		case b == "ids":
			return rc.kafkaBrokers(ctx, d)
		case b == "delete_topics":
			return rc.kafkaDeleteTopics(ctx, d)
		case b == "reassign_partitions":
			return rc.kafkaReassignments(ctx, d)
		}
		return rc.kafkaNotifications(ctx, d)
	},
}

// kafkaQueueOf says which notification queue dir is, and its root.
func kafkaQueueOf(dir string) (root string, ok bool) {
	for rel := range kafkaQueues {
		if strings.HasSuffix(dir, "/"+rel) {
			return strings.TrimSuffix(dir, "/"+rel), true
		}
	}
	return "", false
}

func kafkaRoot(p string) string {
	if p == "/" || p == "" {
		return "/"
	}
	return p
}

// kafkaBrokerText shows a broker registration: "PLAINTEXT://kafka-1:9092"
// (its endpoints), else host:port.
func kafkaBrokerText(data []byte) string {
	m := jsonObject(data)
	if m == nil {
		return ""
	}
	if eps, ok := m["endpoints"].([]any); ok && len(eps) > 0 {
		var s []string
		for _, e := range eps {
			if e, ok := e.(string); ok {
				s = append(s, e)
			}
		}
		return strings.Join(s, ",")
	}
	if host := jsonString(m, "host"); host != "" {
		port, _ := jsonInt(m, "port")
		return fmt.Sprintf("%s:%d", host, port)
	}
	return ""
}

// kafkaBrokers reads brokers/ids: the live brokers.
func (rc *recognizer) kafkaBrokers(ctx context.Context, d listedDir) (Recipe, bool, error) {
	for _, n := range d.names {
		if _, err := strconv.Atoi(n.Name); err != nil {
			return nil, false, nil // broker ids are integers
		}
	}
	root := kafkaRoot(up(d.path, 2))
	g, err := rc.group(ctx, d, kafkaSystemName, SystemTag{System: kafkaSystemName, Role: "brokers", SystemRoot: root},
		func(name string, data []byte) string {
			if s := kafkaBrokerText(data); s != "" {
				return "broker " + name + " · " + s
			}
			return ""
		})
	if err != nil {
		return nil, true, err
	}
	sortByBrokerID(g.Members)
	return g, true, nil
}

func sortByBrokerID(cs []Contender) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, _ := strconv.Atoi(cs[i].Node)
		b, _ := strconv.Atoi(cs[j].Node)
		return a < b
	})
}

// kafkaController reads /controller: the controller election, its leader
// the broker named by brokerid, its candidates the brokers watching it
// (named by their registrations' sessions).
func (rc *recognizer) kafkaController(ctx context.Context, d listedDir) (Recipe, bool, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil {
		return nil, err != nil, err
	}
	m := jsonObject(data)
	brokerID, ok := jsonInt(m, "brokerid")
	if !ok {
		return nil, false, nil // not Kafka's
	}
	root := kafkaRoot(path.Dir(d.path))
	// Every broker watches /controller and races to create it when it
	// goes: Kafka's own herd, by design, so not warned about here.
	e := &Election{Path: d.path, Format: kafkaSystemName, Candidates: []Contender{},
		SystemTag: SystemTag{System: kafkaSystemName, Role: "controller", SystemRoot: root}}
	b := rc.build(d.path)
	leader := b.holder(childNode{childName: childName{Name: d.path}, data: data, stat: stat}, d.path, "controller", false)
	e.Leader = &leader
	e.Candidates = nonNilContenders(rc.watchersOf(d.path, stat.EphemeralOwner))
	if stat.EphemeralOwner == 0 {
		b.warnf("/controller is persistent: no broker can take over when its controller goes")
	}

	brokers, err := rc.kafkaBrokersAt(ctx, root)
	if err != nil {
		return nil, true, err
	}
	bySession := sessionMembers(brokers)
	epoch, epochKnown := rc.kafkaEpoch(ctx, root)
	lead := fmt.Sprintf("broker %d", brokerID)
	if epochKnown {
		lead += fmt.Sprintf(" · epoch %d", epoch)
	}
	if e.Leader != nil {
		e.Leader.Data = lead
		if id, ok := bySession[e.Leader.SessionID]; brokers != nil && (!ok || id != strconv.FormatInt(brokerID, 10)) {
			b.warnf("the controller names broker %d, but no broker registration under brokers/ids belongs to its session %s", brokerID, e.Leader.Session)
		}
	}
	for i := range e.Candidates {
		if id, ok := bySession[e.Candidates[i].SessionID]; ok {
			e.Candidates[i].Data = "broker " + id
		}
	}
	if epochKnown {
		rc.kafkaCheckPartitions(ctx, root, epoch, brokers, b)
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}

// kafkaBrokersAt reads root/brokers/ids (nil when there is none).
func (rc *recognizer) kafkaBrokersAt(ctx context.Context, root string) (*Group, error) {
	dir := path.Join(root, "brokers/ids")
	children, stat, err := rc.list(ctx, dir)
	if err != nil || stat == nil {
		return nil, err
	}
	r, ok, err := rc.kafkaBrokers(ctx, newListedDir(dir, stat, children))
	if err != nil || !ok {
		return nil, err
	}
	return r.(*Group), nil
}

// kafkaEpoch reads /controller_epoch.
func (rc *recognizer) kafkaEpoch(ctx context.Context, root string) (int64, bool) {
	data, stat, err := rc.get(ctx, path.Join(root, "controller_epoch"))
	if err != nil || stat == nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}

// kafkaCheckPartitions reads partition states (the first
// kafkaPartitionStates) and warns about those written under a later
// controller epoch than /controller_epoch — the epoch went backwards,
// and a controller of the current epoch is fenced by the brokers — and
// those whose leader is no live broker.
func (rc *recognizer) kafkaCheckPartitions(ctx context.Context, root string, epoch int64, brokers *Group, b *recipeBuilder) {
	live := map[string]bool{}
	if brokers != nil {
		for _, m := range brokers.Members {
			live[m.Node] = true
		}
	}
	topicsDir := path.Join(root, "brokers/topics")
	topics, _, err := rc.list(ctx, topicsDir)
	if err != nil {
		return
	}
	read, ahead, offline := 0, []string{}, []string{}
	var maxEpoch int64
topics:
	for _, t := range topics {
		parts, _, err := rc.list(ctx, path.Join(topicsDir, t, "partitions"))
		if err != nil {
			continue
		}
		sort.Slice(parts, func(i, j int) bool { a, _ := strconv.Atoi(parts[i]); c, _ := strconv.Atoi(parts[j]); return a < c })
		for _, p := range parts {
			if read == kafkaPartitionStates {
				b.warnf("checked the first %d partition states only", kafkaPartitionStates)
				break topics
			}
			data, stat, err := rc.get(ctx, path.Join(topicsDir, t, "partitions", p, "state"))
			if err != nil || stat == nil {
				continue
			}
			read++
			st := jsonObject(data)
			if ce, ok := jsonInt(st, "controller_epoch"); ok && ce > epoch {
				ahead = append(ahead, t+"-"+p)
				maxEpoch = max(maxEpoch, ce)
			}
			if leader, ok := jsonInt(st, "leader"); ok && brokers != nil && (leader < 0 || !live[strconv.FormatInt(leader, 10)]) {
				offline = append(offline, fmt.Sprintf("%s-%s (leader %d)", t, p, leader))
			}
		}
	}
	if len(ahead) > 0 {
		b.warnf("controller epoch went backwards: controller_epoch is %d but %s written under epoch %d", epoch, listShort(ahead), maxEpoch)
	}
	if len(offline) > 0 {
		b.warnf("%d partitions led by no live broker: %s", len(offline), listShort(offline))
	}
}

// listShort joins the first few of a list.
func listShort(items []string) string {
	const show = 5
	if len(items) <= show {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:show], ", ") + fmt.Sprintf(" and %d more", len(items)-show)
}

// kafkaNotifications reads a notification queue: persistent sequential
// items the controller has yet to process.
func (rc *recognizer) kafkaNotifications(ctx context.Context, d listedDir) (Recipe, bool, error) {
	root, _ := kafkaQueueOf(d.path)
	var q struct{ prefix, role string }
	for rel, info := range kafkaQueues {
		if strings.HasSuffix(d.path, "/"+rel) {
			q = info
		}
	}
	var items, foreign []childName
	for _, n := range d.names {
		if n.HasSeq && strings.HasPrefix(n.Name, q.prefix) {
			items = append(items, n)
		} else {
			foreign = append(foreign, n)
		}
	}
	if len(items) == 0 && len(foreign) > 0 {
		return nil, false, nil
	}
	return rc.systemQueue(ctx, d, items, foreign, SystemTag{System: kafkaSystemName, Role: q.role, SystemRoot: kafkaRoot(root)}, nil)
}

// systemQueue reads a system's queue of persistent items in sequence
// order, each described by describe (nil: its data summarised).
func (rc *recognizer) systemQueue(ctx context.Context, d listedDir, items, foreign []childName, t SystemTag, describe func(name string, data []byte) string) (Recipe, bool, error) {
	sortBySeq(items)
	shown := items[:min(len(items), recQueueItems)]
	ms, err := rc.readMembers(ctx, d.path, shown)
	if err != nil {
		return nil, true, err
	}
	q := &Queue{Path: d.path, Format: t.System, SystemTag: t, Length: len(items), Items: []QueueItem{}}
	for _, m := range ms {
		it := QueueItem{Node: m.Name, Data: queueData(m.data)}
		if describe != nil {
			it.Data = describe(m.Name, m.data)
		}
		q.Items = append(q.Items, it)
	}
	b := rc.build(d.path)
	if len(items) > len(shown) {
		b.warnf("showing the first %d of %d items", len(shown), len(items))
	}
	b.checkForeign(foreign, "", t.System+" "+t.Role+" queue")
	q.Warnings = b.warn
	return q, true, nil
}

// kafkaDeleteTopics reads admin/delete_topics: a topic per child, waiting
// for the controller to delete it.
func (rc *recognizer) kafkaDeleteTopics(ctx context.Context, d listedDir) (Recipe, bool, error) {
	q := &Queue{Path: d.path, Format: kafkaSystemName, Length: len(d.names), Items: []QueueItem{}, Warnings: []string{},
		SystemTag: SystemTag{System: kafkaSystemName, Role: "delete-topics", SystemRoot: kafkaRoot(up(d.path, 2))}}
	for _, n := range d.names[:min(len(d.names), recQueueItems)] {
		q.Items = append(q.Items, QueueItem{Node: n.Name, Data: "delete topic " + n.Name})
	}
	return q, true, nil
}

// kafkaReassignments reads admin/reassign_partitions: the partitions
// whose replicas are being moved, as items.
func (rc *recognizer) kafkaReassignments(ctx context.Context, d listedDir) (Recipe, bool, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil {
		return nil, err != nil, err
	}
	m := jsonObject(data)
	parts, ok := m["partitions"].([]any)
	if !ok {
		return nil, false, nil
	}
	q := &Queue{Path: d.path, Format: kafkaSystemName, Length: len(parts), Items: []QueueItem{}, Warnings: []string{},
		SystemTag: SystemTag{System: kafkaSystemName, Role: "reassign-partitions", SystemRoot: kafkaRoot(up(d.path, 2))}}
	for _, p := range parts[:min(len(parts), recQueueItems)] {
		pm, _ := p.(map[string]any)
		n, _ := jsonInt(pm, "partition")
		replicas, _ := pm["replicas"].([]any)
		var rs []string
		for _, r := range replicas {
			if f, ok := r.(float64); ok {
				rs = append(rs, strconv.FormatInt(int64(f), 10))
			}
		}
		name := fmt.Sprintf("%s-%d", jsonString(pm, "topic"), n)
		q.Items = append(q.Items, QueueItem{Node: name, Data: fmt.Sprintf("move %s to brokers [%s]", name, strings.Join(rs, ","))})
	}
	return q, true, nil
}
