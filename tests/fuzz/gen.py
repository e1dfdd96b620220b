# gen.py SEED OUT.db - a random small run: two devices, a few host and device
# addresses, sizes (some zero) and contents, unhashed transfers, associates,
# unpaired deletes, begin times slightly out of seq order.  FUZZN: max events.
import os, sqlite3, random, sys, subprocess
seed=int(sys.argv[1]); path=sys.argv[2]; random.seed(seed)
schema=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../db/schema.sql")
subprocess.run(f"rm -f {path}; sqlite3 {path} < {schema}", shell=True, check=True)
db=sqlite3.connect(path)
H=4; devs=[0,1]; haddrs=[0x1000*i for i in range(1,5)]; daddrs=[0x900000+0x1000*i for i in range(4)]
sizes=[8,16,0]; hashes=[1,2,3]
seq=0; t=0; live={}  # (dev,daddr)->alloc seq
rows=[]; kern=[]; pairs=[]
n=random.randint(20,int(os.environ.get("FUZZN","120")))
for _ in range(n):
    seq+=1; t+=random.randint(0,20)
    # begin jitter: occasionally out of seq order
    b = t - (random.randint(0,30) if random.random()<0.2 else 0)
    dur=random.randint(0,15)
    r=random.random(); d=random.choice(devs)
    if r<0.15:
        kern.append((seq,d,b,dur))
    elif r<0.30:
        da=random.choice(daddrs); ha=random.choice(haddrs+[0])
        rows.append((seq,1,H,d,ha,da,random.choice(sizes),b,dur,None)); live[(d,da)]=(seq,b+dur)
    elif r<0.40:
        da=random.choice(daddrs)
        rows.append((seq,4,d,-1,da,None,0,b,dur,None))
        if (d,da) in live and live[(d,da)][1] <= b and random.random()<0.9: pairs.append((seq,live.pop((d,da))[0]))
    elif r<0.70:
        h=random.choice(hashes) if random.random()<0.9 else None
        rows.append((seq,2,H,d,random.choice(haddrs),random.choice(daddrs),random.choice(sizes),b,dur,h))
    elif r<0.95:
        h=random.choice(hashes) if random.random()<0.9 else None
        rows.append((seq,3,d,H,random.choice(daddrs),random.choice(haddrs),random.choice(sizes),b,dur,h))
    else:
        rows.append((seq,5,H,d,random.choice(haddrs),random.choice(daddrs),8,b,dur,None))
rows=[r for r in rows if r[7]>=0]; kern=[k for k in kern if k[2]>=0]
db.execute("insert into run_raw(id,end_ns,host_device,status) values(1,?,4,'complete')",(t+100,))
db.executemany("insert into data_op_raw(seq,kind,src_dev,dst_dev,src_addr,dst_addr,bytes,begin_ns,dur_ns,hash) values(?,?,?,?,?,?,?,?,?,?)",rows)
db.executemany("insert into kernel_raw(seq,device,begin_ns,dur_ns) values(?,?,?,?)",kern)
db.executemany("insert into delete_pair_raw values(?,?)",pairs)
# The pairs above are the run's truth (some deletes deliberately unpaired), as
# 'mapprof record' would have left them: report must not pair again.
db.execute("insert or replace into meta values('deletes_paired','1')")
db.commit()
