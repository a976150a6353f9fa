import collections,sys
d=collections.defaultdict(dict)
for n in ['new1','old1','new2','old2']:
    for l in open(n+'.txt'):
        p=l.split()
        name=p[1]; shape=p[4]; lib=float(p[6]); ratio=float(p[7].rstrip('x'))
        d[(name,shape)][n]=(lib/ratio,ratio)
print("%-20s %-15s %6s %6s %6s %6s  old/new" % ("cfg","shape","new1","old1","new2","old2"))
for k,v in d.items():
    nb=min(v['new1'][0],v['new2'][0]); ob=min(v['old1'][0],v['old2'][0])
    print("%-20s %-15s %6.2f %6.2f %6.2f %6.2f  %.3f" % (k[0],k[1],v['new1'][1],v['old1'][1],v['new2'][1],v['old2'][1], ob/nb))
