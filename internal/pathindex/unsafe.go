package pathindex

import "unsafe"

// unsafeString views b as a string without copying; b must not change
// while the string is in use (map lookups only).
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
