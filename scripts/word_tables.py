#!/usr/bin/env python3
"""The word-size tables of docs/results.md from two run reports:
    scripts/word_tables.py WORD32.json WORDQ.json [PEERS.md]
    scripts/word_tables.py --extra WORD32X.json WORDQX.json
(--extra: the tables of "Log N 12 to 14 and 17" from `scripts/device-check.sh wordx`'s two
reports: gpu-fast against gpu-fast32 at each log N and log Q target, then gpu-fast32 at every
limb count.) Reports may be gzipped.
WORD32.json: `nttbench run --tier warm,cold --word 32 --variant gpu-fast32 --limbs ... --bits 31`;
WORDQ.json: `nttbench run --tier warm,cold --word 32,64 --variant gpu-fast,gpu-fast32,gpu-radix2-32
--logq ...`. PEERS.md (optional): a side-by-side record whose rows read
`logN L dir tier | ... | <Cheddar 32-bit at 2L limbs> | <ratio>`, for the Cheddar columns.
Prints three markdown tables separated by blank lines."""
import gzip, json, re, sys
def load(p):
    d=json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p)); out={}
    for c in d['cases']:
        if c['status']!='ok': continue
        p_=c['params']; key=(c['variant'],p_['log_n'],p_['limbs'],('fwd' if p_['direction']=='forward' else 'inv'),c['tier'])
        out[key]=(c['stats']['median']/1000.0, p_.get('log_q'))
    return out
DT=(('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))
if sys.argv[1] == '--extra':
    w=load(sys.argv[2]); q=load(sys.argv[3])
    print("| log N | log Q target | gpu-fast L / gpu-fast32 L | fwd warm 64 / 32 | fwd cold 64 / 32 | inv warm 64 / 32 | inv cold 64 / 32 | 32-bit speed-up (fwd warm, fwd cold, inv warm, inv cold) |")
    print("|---:|---:|---|---|---|---|---|---|")
    for n in sorted({k[1] for k in q}):
        for L64,L32,tq in ((2,4,120),(8,15,480),(16,31,960),(32,62,1920),(64,124,3840)):
            a=[q.get(('gpu-fast',n,L64,d,t)) for d,t in DT]
            b=[q.get(('gpu-fast32',n,L32,d,t)) for d,t in DT]
            if not all(a) or not all(b): continue
            print(f"| {n} | {tq} | {L64} / {L32} | " + " | ".join(f"{x[0]:.2f} / {y[0]:.2f}" for x,y in zip(a,b)) + " | " + ", ".join(f"{x[0]/y[0]:.2f}x" for x,y in zip(a,b)) + " |")
    print()
    print("| log N | L (31-bit) | log Q | fwd warm | fwd cold | inv warm | inv cold |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n,L in sorted({(k[1],k[2]) for k in w if k[0]=='gpu-fast32'}):
        c=[w.get(('gpu-fast32',n,L,d,t)) for d,t in DT]
        if all(c):
            print(f"| {n} | {L} | {c[0][1]:.0f} | " + " | ".join(f"{x[0]:.2f}" for x in c) + " |")
    sys.exit(0)
w=load(sys.argv[1])
# Cheddar 32-bit figures from the anchor file: rows "logN L dir tier | ... | cheddar32@2L"
ched={}
for line in (open(sys.argv[3]) if len(sys.argv) > 3 else []):
    m=re.match(r'^(\d+)\s+(\d+)\s+(fwd|inv)\s+(warm|cold)\s*\|.*\|\s*([\d.]+)\s*\|\s*[\d.]+\s*$', line)
    if m and float(m.group(5))>0:
        ched[(int(m.group(1)),2*int(m.group(2)),m.group(3),m.group(4))]=float(m.group(5))
print("| log N | L (31-bit) | log Q | fwd warm | fwd cold | inv warm | inv cold | Cheddar 32-bit, same L (fwd warm / fwd cold / inv warm / inv cold) | speed-up over Cheddar |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
for n in (15,16,17):
    for L in (1,2,4,8,16,32,64,128):
        cells=[w.get(('gpu-fast32',n,L,d,t)) for d,t in (('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))]
        if not all(cells): continue
        lq=cells[0][1]
        ch=[ched.get((n,L,d,t)) for d,t in (('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))]
        chs=" / ".join(f"{x:.1f}" if x else "-" for x in ch)
        sp=" / ".join(f"{x/c[0]:.2f}x" if x else "-" for x,c in zip(ch,cells))
        print(f"| {n} | {L} | {lq:.0f} | " + " | ".join(f"{c[0]:.2f}" for c in cells) + f" | {chs} | {sp} |")
print()
q=load(sys.argv[2])
print("| log Q target | gpu-fast (64-bit, 60-bit primes) L, log Q | gpu-fast32 (31-bit primes) L, log Q | fwd warm 64 / 32 | fwd cold 64 / 32 | inv warm 64 / 32 | inv cold 64 / 32 | 32-bit speed-up (fwd warm, fwd cold, inv warm, inv cold) |")
print("|---:|---|---|---|---|---|---|---|")
import collections
rows=collections.defaultdict(dict)
for (v,n,L,d,t),(m,lq) in q.items():
    rows[(v)][(L,d,t)]=(m,lq)
pairs=[(2,4,120),(8,15,480),(16,31,960),(32,62,1920),(64,124,3840)]
for L64,L32,tq in pairs:
    a=[rows['gpu-fast'].get((L64,d,t)) for d,t in (('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))]
    b=[rows['gpu-fast32'].get((L32,d,t)) for d,t in (('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))]
    print(f"| {tq} | {L64}, {a[0][1]:.0f} | {L32}, {b[0][1]:.1f} | " + " | ".join(f"{x[0]:.2f} / {y[0]:.2f}" for x,y in zip(a,b)) + " | " + ", ".join(f"{x[0]/y[0]:.2f}x" for x,y in zip(a,b)) + " |")
print()
print("| log Q | L | gpu-radix2-32 fwd warm | fwd cold | inv warm | inv cold |")
print("|---:|---:|---:|---:|---:|---:|")
for L64,L32,tq in pairs:
    b=[rows['gpu-radix2-32'].get((L32,d,t)) for d,t in (('fwd','warm'),('fwd','cold'),('inv','warm'),('inv','cold'))]
    print(f"| {b[0][1]:.0f} | {L32} | " + " | ".join(f"{x[0]:.2f}" for x in b) + " |")
