# oracle: --type socket_filter --test-run
# load-acquire / store-release, every size (raw encodings: llvm-mc-19 lacks the syntax)
r1 = 0
*(u64 *)(r10 - 8) = r1
.8byte 0x00000100fff8a2db
.8byte 0x00000100fff8a3c3
.8byte 0x00000100fff8a4cb
.8byte 0x00000100fff8a5d3
.8byte 0x00000110fff82adb
.8byte 0x00000110fff83ac3
.8byte 0x00000110fff84acb
.8byte 0x00000110fff85ad3
r0 = 0
exit
