"""test/dist/netns.py - a throwaway network of Linux network namespaces, one per process of a job.

Each "host" is a namespace with its own loopback and one veth link to a bridge that lives in a
switch namespace of its own, so the host's own network is never touched. Addresses come from
10.213.0.0/24 and exist only inside these namespaces. Needs root (CAP_NET_ADMIN) and iproute2;
everything made is deleted on close (deleting a namespace deletes its links).
"""
import os
import subprocess

SUBNET = "10.213.0."


def _ip(*args):
    subprocess.run(["ip"] + list(args), check=True, timeout=30, capture_output=True)


def available():
    """Why namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "not root: network namespaces need CAP_NET_ADMIN"
    probe = "fluidc_probe_%d" % os.getpid()
    try:
        _ip("netns", "add", probe)
        _ip("netns", "del", probe)
    except (OSError, subprocess.SubprocessError) as e:
        return "cannot make a network namespace: %s" % e
    return None


class Hosts:
    def __init__(self, names):
        tag = "fl%d" % (os.getpid() % 100000)
        self.switch = tag + "sw"
        self.ns = {n: "%sh%d" % (tag, i) for i, n in enumerate(names)}
        self.addr = {n: SUBNET + str(i + 1) for i, n in enumerate(names)}
        self.port = {n: "%ss%d" % (tag, i) for i, n in enumerate(names)}  # the switch's side of each link
        self.made = []
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def _make(self):
        _ip("netns", "add", self.switch)
        self.made.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for n, ns in self.ns.items():
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", self.port[n], "netns", self.switch)
            _ip("-n", ns, "addr", "add", self.addr[n] + "/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", self.switch, "link", "set", self.port[n], "master", "br0")
            _ip("-n", self.switch, "link", "set", self.port[n], "up")

    def prefix(self, name):
        """The command prefix that runs a program on host `name` (ip netns exec execs it: same pid)."""
        return ["ip", "netns", "exec", self.ns[name]]

    def cut(self, name):
        """Unplugs host `name`: its link goes down at the switch (its process keeps running)."""
        _ip("-n", self.switch, "link", "set", self.port[name], "down")

    def close(self):
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], timeout=30, capture_output=True)
        self.made = []
