// SPDX-License-Identifier: Apache-2.0
//
// Test-only keys (generated once with `openssl genpkey` / `ssh-keygen`; never used anywhere
// else). kP521AuthorizedKey and kP521Fingerprint are what OpenSSH 9 prints for kP521Sec1
// (`ssh-keygen -y -f`, `ssh-keygen -l -f`): a known answer from an independent implementation.
#pragma once

namespace test_keys {

inline constexpr const char* kP521Sec1 = R"PEM(-----BEGIN EC PRIVATE KEY-----
MIHcAgEBBEIBqpazTn1hRQzCcP1iqb4DCx7mFETf8foCXsBkGizwev5UWostvBgH
0OC8jmL5+2kVlGCt77LRMFSQVfPY15QHf8egBwYFK4EEACOhgYkDgYYABAHE7Pvz
SU9oB9IuSf5WFhIi7gESptrP29b6TUXg1H5HPuZuc078eH38Yyt7Pp7r98ULgTny
PhV+qaRHq6J7LWlzkwAwp3MBDavtP+WM5Zl583gqQEPVOqt59RG66AQ6mcJrCjTp
ZqU3VEMskx7rwaNSNw5Ch/nK3eRnLRPJXySq1t4eVw==
-----END EC PRIVATE KEY-----)PEM";

inline constexpr const char* kP521Pkcs8 = R"PEM(-----BEGIN PRIVATE KEY-----
MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIBqpazTn1hRQzCcP1i
qb4DCx7mFETf8foCXsBkGizwev5UWostvBgH0OC8jmL5+2kVlGCt77LRMFSQVfPY
15QHf8ehgYkDgYYABAHE7PvzSU9oB9IuSf5WFhIi7gESptrP29b6TUXg1H5HPuZu
c078eH38Yyt7Pp7r98ULgTnyPhV+qaRHq6J7LWlzkwAwp3MBDavtP+WM5Zl583gq
QEPVOqt59RG66AQ6mcJrCjTpZqU3VEMskx7rwaNSNw5Ch/nK3eRnLRPJXySq1t4e
Vw==
-----END PRIVATE KEY-----)PEM";

inline constexpr const char* kP521Sec1Compressed = R"PEM(-----BEGIN EC PRIVATE KEY-----
MIGYAgEBBEIBqpazTn1hRQzCcP1iqb4DCx7mFETf8foCXsBkGizwev5UWostvBgH
0OC8jmL5+2kVlGCt77LRMFSQVfPY15QHf8egBwYFK4EEACOhRgNEAAMBxOz780lP
aAfSLkn+VhYSIu4BEqbaz9vW+k1F4NR+Rz7mbnNO/Hh9/GMrez6e6/fFC4E58j4V
fqmkR6uiey1pc5M=
-----END EC PRIVATE KEY-----)PEM";

inline constexpr const char* kP521Explicit = R"PEM(-----BEGIN EC PRIVATE KEY-----
MIICngIBAQRCAaqWs059YUUMwnD9Yqm+Awse5hRE3/H6Al7AZBos8Hr+VFqLLbwY
B9DgvI5i+ftpFZRgre+y0TBUkFXz2NeUB3/HoIIBxzCCAcMCAQEwTQYHKoZIzj0B
AQJCAf//////////////////////////////////////////////////////////
////////////////////////////MIGfBEIB////////////////////////////
//////////////////////////////////////////////////////////wEQgBR
lT65YY4cmh+SmiGgtoVA7qLacluZsxXzuLSJkY7xCeFWGTlR7H6TexZSwL07sb8H
NXPfiD0sNPHvRR/Ua1A/AAMVANCeiAApHLhTlsxnFzkyhKqg2mS6BIGFBADGhY4G
twQE6c2ePstmI5W0QpxkgTkFP7Uh+CivYGtNPbqhS1537+dZKP4dwSei/6jeM0iz
wYVqQpv5fn4xwuW9ZgEYOSlqeJo7wARcil+0LH0b2Zj1RElXm0RoF6+9Fyc+ZiyX
7nKZXvQmQMVQuQE/rQdhNTxwhqJywkCIvpR2n9FmUAJCAf//////////////////
////////////////////////+lGGh4O/L5Zrf8wBSPcJpdA7tcm4iZxHrrtvtx6R
OGQJAgEBoYGJA4GGAAQBxOz780lPaAfSLkn+VhYSIu4BEqbaz9vW+k1F4NR+Rz7m
bnNO/Hh9/GMrez6e6/fFC4E58j4VfqmkR6uiey1pc5MAMKdzAQ2r7T/ljOWZefN4
KkBD1TqrefURuugEOpnCawo06WalN1RDLJMe68GjUjcOQof5yt3kZy0TyV8kqtbe
Hlc=
-----END EC PRIVATE KEY-----)PEM";

inline constexpr const char* kP521Encrypted = R"PEM(-----BEGIN EC PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-128-CBC,D7DAEF8E828C038946C12E999701AED3

3s4jsKhpdEMyFs2puoAtyqEknIUb4QbIYiZUqDLMgsFKhm91XflRQd54nW6rzcHN
Je6/hQEnGLyVew0T+n5ZJDW2pjoONeVcd0TYHA4loEU3/fjcP4bRc/kGkjtwrMmD
rL91elFVbG3maDT8ei7ZOQKHr1vHT1D20vduinKxt5/UZ3gHUMyG5RlQVN5GliSR
WFPx2PB0MLOqVEsgMFm7NsRfkOFp4BNs67C7cX1LtUIx93B52j1zpEVF2lFl/38j
3gf5A9K/3Y4GPxcygwDporYvGRESHl9JvnPx2r1b63o=
-----END EC PRIVATE KEY-----)PEM";

inline constexpr const char* kP256 = R"PEM(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgukd0ajcL2/5pMjng
wUNQMI5/M6QbSu5ubnrk/uS4AgyhRANCAAS7aUyTEW9Gj3HIaVRCUivQtcLJ+MDi
tjvbyC9iyj87xutUHqlkMt3VmcuWn21P7MRSc7kZyBjdl7mE2OFNPezW
-----END PRIVATE KEY-----)PEM";

inline constexpr const char* kEd25519 = R"PEM(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIB1qfr/lLURdEJ6n5vhgT77wjlx7P9Mf3pLl3s2M64zl
-----END PRIVATE KEY-----)PEM";

inline constexpr const char* kRsa512 = R"PEM(-----BEGIN PRIVATE KEY-----
MIIBUwIBADANBgkqhkiG9w0BAQEFAASCAT0wggE5AgEAAkEA4kSi3ljtEAKcsQTI
YQbAfK18AAUrKX5jAfymNbEL3GqC65VMuB8SR0QFEmRoubayjZyvm3xsr0MqeJvm
DhiDTQIDAQABAkAJ+W6YkKD6qLLRlt1icZLArEEgGxo4/QpORx3olgJo1+/oqBP2
mJmLaeJxunmx4hoGqZm83MrxtJrhFNphJjkBAiEA/PhWE4uOZqPPe6UzLZWQ++PE
qatfWT9c2kKCgFAh5sECIQDk+mz7FgH+IpNMOt4qAd9dGP8Qy9MDcVt+wqlZ3ior
jQIgbx/UCA/1BQeOnF0shyi9oLkkafgbEYRxEHvJAf6xdcECIE2CF3HGuVX1Djc3
lgxSJfG1jGF7HSqFLJtz+S9abJvhAiAoZUNV1G/dRplCDw0WdH0/cmejsaKnNzmV
Zb9cpWXQZA==
-----END PRIVATE KEY-----)PEM";

inline constexpr const char* kOpenSshFormat = R"PEM(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAArAAAABNlY2RzYS
1zaGEyLW5pc3RwNTIxAAAACG5pc3RwNTIxAAAAhQQArQMis5i0qarQm8OPlwx5VkP9FCdG
wqgS7C4RFrCpoDNVEti5xD9iksdGC6SOzObyHymKb2/uDABm6Rr3KKKGOgEAaCHBZtBQPP
naVK8bNx2OPZ7qevvxkfO8NHiIT7wK+dymRNfGWG4m1CGAjmVdPiw4XoApoxvNC1vWBz/k
kSdwvFEAAAEAgjzg9II84PQAAAATZWNkc2Etc2hhMi1uaXN0cDUyMQAAAAhuaXN0cDUyMQ
AAAIUEAK0DIrOYtKmq0JvDj5cMeVZD/RQnRsKoEuwuERawqaAzVRLYucQ/YpLHRgukjszm
8h8pim9v7gwAZuka9yiihjoBAGghwWbQUDz52lSvGzcdjj2e6nr78ZHzvDR4iE+8Cvncpk
TXxlhuJtQhgI5lXT4sOF6AKaMbzQtb1gc/5JEncLxRAAAAQU/xsRFZIk/b24s8CTNy4g9F
tqFxMe62dRzW+SSfWkHDpPmnb+M2W3D87w5PZyvqiKTk8EJtbGa8nm3HHN+7vg1RAAAAAA
ECAw==
-----END OPENSSH PRIVATE KEY-----)PEM";

inline constexpr const char* kP521PublicOnly = R"PEM(-----BEGIN PUBLIC KEY-----
MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQBxOz780lPaAfSLkn+VhYSIu4BEqba
z9vW+k1F4NR+Rz7mbnNO/Hh9/GMrez6e6/fFC4E58j4VfqmkR6uiey1pc5MAMKdz
AQ2r7T/ljOWZefN4KkBD1TqrefURuugEOpnCawo06WalN1RDLJMe68GjUjcOQof5
yt3kZy0TyV8kqtbeHlc=
-----END PUBLIC KEY-----)PEM";

inline constexpr const char* kP521EncryptedPkcs8 = R"PEM(-----BEGIN ENCRYPTED PRIVATE KEY-----
MIIBXTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI7nmSKcpzvIUCAggA
MAwGCCqGSIb3DQIJBQAwHQYJYIZIAWUDBAEqBBC2qSVk8Uhd0QCzK17USQ/PBIIB
ACeq0K81xwhfUXKY/J6+fpK5Dy/bkdSPW8FR9z8boM2njeCnGRXMLcrQ6vBHQsxF
OD2sCFYoy8YObh/Mh0YiBLLvRAA3FTWq/+SewGyVcz1srEANIMu47WBGFGiv4Zbk
StTNdkMNFUfN9A4Rlv6egScoSxseB3lnk2FZV5aTh+QZHVim78orOsWQBCHsrX10
fQhf65jDMcv1SwO+wXTve3/HbcIRjhwezdI/5SgkF3YdEmXOPCq2mfsyw6dXX3Yk
iDxcJ92PngmLoboz78NO0XixWuth2DzRaLN9Yz3NCANDoorxszOu1X9teYaDWKtY
CAa0JJci0k5mjRl0hta9UWY=
-----END ENCRYPTED PRIVATE KEY-----)PEM";

inline constexpr const char* kP521AuthorizedKey =
    "ecdsa-sha2-nistp521 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAHE7PvzSU9oB9IuSf5WFhIi7gESptrP29b6TUXg1H"
    "5HPuZuc078eH38Yyt7Pp7r98ULgTnyPhV+qaRHq6J7LWlzkwAwp3MBDavtP+"
    "WM5Zl583gqQEPVOqt59RG66AQ6mcJrCjTpZqU3VEMskx7rwaNSNw5Ch/nK3eRnLRPJXySq1t4eVw==\n";
inline constexpr const char* kP521Fingerprint =
    "SHA256:e3BBY5DpE9nPv3XePh/TP/sT3BVkEuv6V+MU05p+qpg";

}  // namespace test_keys
