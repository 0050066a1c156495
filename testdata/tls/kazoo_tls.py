"""Connects to a ZooKeeper TLS port with Kazoo (use_ssl, a client
certificate), creates a node, reads it back and prints "OK <data>".

Usage: kazoo_tls.py HOST:PORT CA CERT KEY PATH
Written for zkx's TLS tests (internal/zkserver/tls_test.go)."""
import sys

from kazoo.client import KazooClient


def main():
    hosts, ca, cert, key, path = sys.argv[1:6]
    client = KazooClient(hosts=hosts, use_ssl=True, verify_certs=True, ca=ca, certfile=cert, keyfile=key, timeout=10)
    client.start(timeout=30)
    try:
        client.create(path, b"over TLS", ephemeral=True)
        data, _ = client.get(path)
        print("OK " + data.decode())
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
