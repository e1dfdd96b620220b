# oracle.py DB - the five patterns counted by brute force, straight from the
# definitions in docs/report-json.md (O(n^2): small databases only).  Prints
# "duplicate_transfer=N round_trip=N repeated_alloc=N unused_alloc=N unused_transfer=N".
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
host = db.execute("select host_device from run_raw").fetchone()[0]
kmap = {1:'alloc',17:'alloc',2:'to',18:'to',3:'from',19:'from',4:'delete',20:'delete'}
ops = []
for seq,kind,sd,dd,sa,da,by,b,dur,h in db.execute("select seq,kind,src_dev,dst_dev,src_addr,dst_addr,bytes,begin_ns,dur_ns,hash from data_op_raw"):
    if kind in kmap: ops.append(dict(seq=seq,k=kmap[kind],sd=sd,dd=dd,sa=sa,da=da,by=by,b=b,e=b+(dur or 0),h=h))
kern = [dict(seq=s,dev=d,b=b,e=b+(dur or 0)) for s,d,b,dur in db.execute("select seq,device,begin_ns,dur_ns from kernel_raw")]
pair = dict(db.execute("select delete_seq, alloc_seq from delete_pair_raw"))
key = lambda x: (x['b'], x['seq'])
ops.sort(key=key)
tr = [o for o in ops if o['k'] in ('to','from') and o['by']]
# duplicate
dd = 0
for i,o in enumerate(tr):
    if o['h'] is None: continue
    if any(p['h']==o['h'] and p['by']==o['by'] and p['dd']==o['dd'] for p in tr[:i]): dd += 1
# round trip
rt = 0; paired=set()
for i,r in enumerate(tr):
    cands=[t for t in tr[:i] if t['sd']==r['dd'] and t['dd']==r['sd'] and t['da']==r['sa'] and t['by']==r['by']]
    if not cands: continue
    t=cands[-1]
    if t['h'] is not None and r['h'] is not None and t['h']==r['h'] and t['seq'] not in paired:
        paired.add(t['seq']); rt+=1
# repeated alloc
al=[o for o in ops if o['k']=='alloc' and o['by']]
seen=set(); ra=0
for a in al:
    k=(a['sa'],a['dd'],a['by'])
    if k in seen: ra+=1
    seen.add(k)
# unused alloc
end_run = max([o['e'] for o in ops]+[k['e'] for k in kern]+[0])
dels={pair[o['seq']]:o for o in ops if o['k']=='delete' and o['seq'] in pair}
ua=0
for a in al:
    d=dels.get(a['seq']); life_end = d['e'] if d else float('inf')
    if not any(k['dev']==a['dd'] and k['e']>=a['b'] and k['b']<=life_end for k in kern): ua+=1
# unused transfer
ut=0
events = sorted([dict(o, kind='op') for o in tr] + [dict(k, kind='k') for k in kern], key=key)
for i,x in enumerate(tr):
    if x['dd']==host: continue
    later=[y for y in tr if key(y)>key(x) and y['dd']==x['dd'] and y['da']==x['da'] and y['by']==x['by']]
    W = key(later[0]) if later else (float('inf'),0)
    # kernel could read x: on device, end >= x.begin, and (begin,seq) before W
    if not any(k['dev']==x['dd'] and k['e']>=x['b'] and key(k)<W and (key(k)>key(x) or k['e']>=x['b']) for k in kern): ut+=1
print(f"duplicate_transfer={dd} round_trip={rt} repeated_alloc={ra} unused_alloc={ua} unused_transfer={ut}")
