package decode

import (
	"path"
	"strings"
)

// The messages of systems that keep protocol buffers in ZooKeeper, with
// field numbers and types as each system's .proto files declare them, so
// that their nodes show field names. Which message a node holds is told by
// where it is (SchemaFor): the systems do not say it in the data.

// pbKind is a field's type as a schema declares it.
type pbKind int

const (
	pbGuess    pbKind = iota // not declared: guessed from the wire
	pbString                 // string
	pbRawBytes               // bytes
	pbInt                    // int32, int64 (two's complement varint)
	pbUint                   // uint32, uint64
	pbBool                   // bool
	pbEnum                   // an enum: names by value
	pbDouble                 // double
	pbFloat                  // float
	pbMsg                    // a nested message
)

type pbFieldSpec struct {
	name string
	kind pbKind
	msg  *pbSchema      // pbMsg
	enum map[int]string // pbEnum
}

// pbSchema is one message type.
type pbSchema struct {
	name   string // as the system names it: hbase.pb.Master
	source string // the .proto file it is declared in
	fields map[int]pbFieldSpec
}

// HBase: hbase-protocol-shaded/src/main/protobuf/HBase.proto and
// ZooKeeper.proto ("ZNode data in hbase are serialized protobufs with a
// four byte 'magic' 'PBUF' prefix").
var (
	hbaseServerName = &pbSchema{name: "hbase.pb.ServerName", source: "HBase.proto", fields: map[int]pbFieldSpec{
		1: {name: "host_name", kind: pbString}, 2: {name: "port", kind: pbUint}, 3: {name: "start_code", kind: pbUint},
	}}
	hbaseMaster = &pbSchema{name: "hbase.pb.Master", source: "HBase ZooKeeper.proto", fields: map[int]pbFieldSpec{
		1: {name: "master", kind: pbMsg, msg: hbaseServerName}, 2: {name: "rpc_version", kind: pbUint}, 3: {name: "info_port", kind: pbUint},
	}}
	hbaseMetaRegionServer = &pbSchema{name: "hbase.pb.MetaRegionServer", source: "HBase ZooKeeper.proto", fields: map[int]pbFieldSpec{
		1: {name: "server", kind: pbMsg, msg: hbaseServerName}, 2: {name: "rpc_version", kind: pbUint},
		3: {name: "state", kind: pbEnum, enum: map[int]string{0: "OFFLINE", 1: "PENDING_OPEN", 2: "OPENING", 3: "OPEN",
			4: "PENDING_CLOSE", 5: "CLOSING", 6: "CLOSED", 7: "SPLITTING", 8: "SPLIT"}},
	}}
	hbaseVersionInfo = &pbSchema{name: "hbase.pb.VersionInfo", source: "HBase.proto", fields: map[int]pbFieldSpec{
		1: {name: "version", kind: pbString}, 2: {name: "url", kind: pbString}, 3: {name: "revision", kind: pbString},
		4: {name: "user", kind: pbString}, 5: {name: "date", kind: pbString}, 6: {name: "src_checksum", kind: pbString},
		7: {name: "version_major", kind: pbUint}, 8: {name: "version_minor", kind: pbUint},
	}}
	hbaseRegionServerInfo = &pbSchema{name: "hbase.pb.RegionServerInfo", source: "HBase.proto", fields: map[int]pbFieldSpec{
		1: {name: "infoPort", kind: pbInt}, 2: {name: "version_info", kind: pbMsg, msg: hbaseVersionInfo},
	}}
	hbaseTableName = &pbSchema{name: "hbase.pb.TableName", source: "HBase.proto", fields: map[int]pbFieldSpec{
		1: {name: "namespace", kind: pbString}, 2: {name: "qualifier", kind: pbString},
	}}
	hbaseTableLock = &pbSchema{name: "hbase.pb.TableLock", source: "HBase ZooKeeper.proto", fields: map[int]pbFieldSpec{
		1: {name: "table_name", kind: pbMsg, msg: hbaseTableName}, 2: {name: "lock_owner", kind: pbMsg, msg: hbaseServerName},
		3: {name: "thread_id", kind: pbInt}, 4: {name: "is_shared", kind: pbBool}, 5: {name: "purpose", kind: pbString},
		6: {name: "create_time", kind: pbInt},
	}}
)

// Hadoop's ActiveStandbyElector keeps the application's bytes: HDFS's
// ZKFC writes hadoop.hdfs.ActiveNodeInfo (hadoop-hdfs/src/main/proto/
// HAZKInfo.proto), YARN's ResourceManager hadoop.yarn.ActiveRMInfoProto
// (yarn_server_resourcemanager_service_protos.proto).
var (
	hadoopActiveNodeInfo = &pbSchema{name: "hadoop.hdfs.ActiveNodeInfo", source: "HAZKInfo.proto", fields: map[int]pbFieldSpec{
		1: {name: "nameserviceId", kind: pbString}, 2: {name: "namenodeId", kind: pbString}, 3: {name: "hostname", kind: pbString},
		4: {name: "port", kind: pbInt}, 5: {name: "zkfcPort", kind: pbInt},
	}}
	yarnActiveRMInfo = &pbSchema{name: "hadoop.yarn.ActiveRMInfoProto", source: "yarn_server_resourcemanager_service_protos.proto", fields: map[int]pbFieldSpec{
		1: {name: "clusterId", kind: pbString}, 2: {name: "rmId", kind: pbString},
	}}
)

// BookKeeper's bookie registration: BookieServiceInfoFormat
// (bookkeeper-proto/src/main/proto/DataFormats.proto).
var (
	bookieEndpoint = &pbSchema{name: "BookieServiceInfoFormat.Endpoint", source: "DataFormats.proto", fields: map[int]pbFieldSpec{
		1: {name: "id", kind: pbString}, 2: {name: "port", kind: pbInt}, 3: {name: "host", kind: pbString},
		4: {name: "protocol", kind: pbString}, 5: {name: "auth", kind: pbString}, 6: {name: "extensions", kind: pbString},
	}}
	bookieProperty = &pbSchema{name: "map entry", source: "DataFormats.proto", fields: map[int]pbFieldSpec{
		1: {name: "key", kind: pbString}, 2: {name: "value", kind: pbString},
	}}
	bookieServiceInfo = &pbSchema{name: "BookieServiceInfoFormat", source: "DataFormats.proto", fields: map[int]pbFieldSpec{
		6: {name: "endpoints", kind: pbMsg, msg: bookieEndpoint}, 7: {name: "properties", kind: pbMsg, msg: bookieProperty},
	}}
)

// schemaFor names the message a node at p holds, from where it is; hbase
// tells whether the data came in HBase's framing (so that a node named
// "master" of another system is not taken for HBase's). nil: unknown.
func schemaFor(p string, hbase bool, msg PBMessage) *pbSchema {
	base, parent := path.Base(p), path.Base(path.Dir(p))
	grand := path.Base(path.Dir(path.Dir(p)))
	if hbase {
		switch {
		case base == "master" || parent == "backup-masters":
			return hbaseMaster
		case strings.HasPrefix(base, "meta-region-server"):
			return hbaseMetaRegionServer
		case parent == "rs":
			return hbaseRegionServerInfo
		case grand == "table-lock":
			return hbaseTableLock
		}
		return nil
	}
	switch {
	case base == "ActiveStandbyElectorLock" || base == "ActiveBreadCrumb":
		// Told apart by their fields: only HDFS's has a host and ports.
		if _, ok := msg.field(3); ok {
			return hadoopActiveNodeInfo
		}
		return yarnActiveRMInfo
	case parent == "available" || (parent == "readonly" && grand == "available"):
		return bookieServiceInfo
	}
	return nil
}
