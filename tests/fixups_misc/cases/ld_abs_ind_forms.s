# case: --prog-type sched_cls
# LD_ABS of each size, LD_IND without and with an offset
r6 = r1
r0 = *(u8 *)skb[0]
r7 = r0
r0 = *(u16 *)skb[2]
r0 = *(u32 *)skb[4]
r7 &= 7
r0 = *(u8 *)skb[r7 + 0]
r0 = *(u32 *)skb[r7 + 8]
r0 = 0
exit
