#!/usr/bin/env python3
# tools/check_proto_compat.py - compares proto/framework.proto field by field with the schema inside an installed paddlepaddle wheel.
# Usage: python3 tools/check_proto_compat.py   (needs paddlepaddle==2.6.2 and protoc)
import subprocess, sys, importlib, os
os.makedirs('/tmp/ourpb', exist_ok=True)
subprocess.check_call(['protoc','-I/work/main/proto','--python_out=/tmp/ourpb','/work/main/proto/framework.proto'])
from paddle.base.proto import framework_pb2 as theirs
sys.path.insert(0,'/tmp/ourpb')
import importlib.util
spec = importlib.util.spec_from_file_location('ours','/tmp/ourpb/framework_pb2.py')
# avoid descriptor pool clash: compare via descriptor protos of serialized file
from google.protobuf import descriptor_pb2
fd_t = descriptor_pb2.FileDescriptorProto(); theirs.DESCRIPTOR.CopyToProto(fd_t)
out = subprocess.check_output(['protoc','-I/work/main/proto','--descriptor_set_out=/dev/stdout','/work/main/proto/framework.proto'])
fs = descriptor_pb2.FileDescriptorSet(); fs.ParseFromString(out); fd_o = fs.file[0]
def walk(msgs, prefix, acc):
    for m in msgs:
        for f in m.field: acc[prefix+m.name+'.'+f.name]=(f.number,f.label,f.type)
        for e in m.enum_type:
            for v in e.value: acc[prefix+m.name+'.'+e.name+'.'+v.name]=v.number
        walk(m.nested_type, prefix+m.name+'.', acc)
def top(fd):
    acc={}
    walk(fd.message_type,'',acc)
    for e in fd.enum_type:
        for v in e.value: acc[e.name+'.'+v.name]=v.number
    return acc
a,b=top(fd_t),top(fd_o)
for k in sorted(set(a)|set(b)):
    if a.get(k)!=b.get(k): print('DIFF',k,'paddle',a.get(k),'ours',b.get(k))
print('compared',len(a),len(b))
