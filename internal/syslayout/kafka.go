package syslayout

import (
	"context"
	"fmt"
	"path"
)

// The Kafka layout's brokers and their controller epoch.
const (
	KafkaBrokers         = 3
	KafkaController      = 1
	KafkaControllerEpoch = 7
)

// Kafka lays out a Kafka cluster in ZooKeeper mode under root, as
// core/src/main/scala/kafka/zk/ZkData.scala writes it: brokers registered
// under brokers/ids/<id> (ephemeral, BrokerIdZNode's version 5 JSON),
// broker 1 the controller (/controller, ephemeral, ControllerZNode's JSON)
// with the other brokers watching it, /controller_epoch, a topic whose
// second partition's state names a broker that is gone and an epoch above
// the controller's (so that zkx has something to warn about), and the
// notification queues the controller works through: isr_change_,
// config_change_, log_dir_event_, delete_topics and reassign_partitions.
func (l *Layout) Kafka(ctx context.Context, root string) error {
	for id := 1; id <= KafkaBrokers; id++ {
		host := fmt.Sprintf("kafka-%d", id)
		reg := javaJSON(map[string]any{
			"features":                       map[string]any{},
			"listener_security_protocol_map": map[string]string{"PLAINTEXT": "PLAINTEXT"},
			"endpoints":                      []string{fmt.Sprintf("PLAINTEXT://%s:9092", host)},
			"jmx_port":                       -1, "port": 9092, "host": host, "version": 5,
			"timestamp": itoa(l.Started),
		})
		if _, err := l.ephemeral(ctx, kafkaBroker(id), path.Join(root, "brokers/ids", itoa(int64(id))), reg, false); err != nil {
			return err
		}
	}
	controller := javaJSON(map[string]any{"version": 2, "brokerid": KafkaController, "timestamp": itoa(l.Started), "kraftControllerEpoch": -1})
	if _, err := l.ephemeral(ctx, kafkaBroker(KafkaController), path.Join(root, "controller"), controller, false); err != nil {
		return err
	}
	for id := 1; id <= KafkaBrokers; id++ {
		if id != KafkaController {
			if err := l.watch(kafkaBroker(id), path.Join(root, "controller")); err != nil {
				return err
			}
		}
	}
	if err := l.persistent(ctx, path.Join(root, "controller_epoch"), []byte(itoa(KafkaControllerEpoch))); err != nil {
		return err
	}
	topic := path.Join(root, "brokers/topics/orders")
	if err := l.persistent(ctx, topic, javaJSON(map[string]any{"version": 3,
		"partitions": map[string][]int{"0": {1, 2, 3}, "1": {2, 3, 4}}, "adding_replicas": map[string]any{}, "removing_replicas": map[string]any{}})); err != nil {
		return err
	}
	states := []map[string]any{
		{"controller_epoch": KafkaControllerEpoch, "leader": 1, "version": 1, "leader_epoch": 4, "isr": []int{1, 2, 3}},
		// Written by a controller of a later epoch, leader a broker that is gone.
		{"controller_epoch": KafkaControllerEpoch + 1, "leader": 4, "version": 1, "leader_epoch": 9, "isr": []int{4}},
	}
	for i, st := range states {
		if err := l.persistent(ctx, path.Join(topic, "partitions", itoa(int64(i)), "state"), javaJSON(st)); err != nil {
			return err
		}
	}
	queues := []struct {
		prefix string
		items  [][]byte
	}{
		{"isr_change_notification/isr_change_", [][]byte{
			javaJSON(map[string]any{"version": 1, "partitions": []map[string]any{{"topic": "orders", "partition": 0}}}),
			javaJSON(map[string]any{"version": 1, "partitions": []map[string]any{{"topic": "orders", "partition": 1}}}),
		}},
		{"config/changes/config_change_", [][]byte{javaJSON(map[string]any{"version": 2, "entity_path": "topics/orders"})}},
		{"log_dir_event_notification/log_dir_event_", [][]byte{javaJSON(map[string]any{"version": 1, "broker": 2, "event": 1})}},
	}
	for _, q := range queues {
		for _, item := range q.items {
			if _, err := l.sequential(ctx, path.Join(root, q.prefix), item); err != nil {
				return err
			}
		}
	}
	if err := l.persistent(ctx, path.Join(root, "admin/delete_topics/old-events"), nil); err != nil {
		return err
	}
	return l.persistent(ctx, path.Join(root, "admin/reassign_partitions"), javaJSON(map[string]any{"version": 1,
		"partitions": []map[string]any{{"topic": "orders", "partition": 1, "replicas": []int{1, 2, 3}}}}))
}

func kafkaBroker(id int) string { return fmt.Sprintf("kafka-broker-%d", id) }
