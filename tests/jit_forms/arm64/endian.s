# oracle: --type socket_filter
r0 = 0x12345678
r0 = be16 r0
r0 = be32 r0
r0 = be64 r0
r0 = le16 r0
r0 = le32 r0
r0 = le64 r0
r0 = bswap16 r0
r0 = bswap32 r0
r0 = bswap64 r0
exit
