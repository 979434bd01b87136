#!/bin/sh
# test/dist/netns_agent.sh - mpirun's "ssh" across test/dist/netns.py's hosts: runs a command line in network namespace HOST.
# usage: netns_agent.sh HOST COMMAND...   (mpirun --mca plm_rsh_agent; HOST is the namespace's name, and the
# command line is a shell's, as ssh would hand it to the remote shell)
# The host also gets a hostname of its own (a UTS namespace): OpenMPI names its session directories in /tmp,
# which the namespaces share, after the hostname, and two daemons of one name raced to make the same one.
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c 'hostname "$1" && shift && exec /bin/sh -c "$*"' agent "$host" "$@"
