package confined

import "strings"

// WindowsDevice reports whether name is a device name Windows reserves in
// every folder, in any case and with any extension (CON, PRN, AUX, NUL,
// COM1–9, LPT1–9): git for Windows refuses such a path in a checkout, and
// os.Root there cannot open it, so a file made under it on another system
// breaks every Windows clone.
func WindowsDevice(name string) bool {
	base, _, _ := strings.Cut(strings.ToLower(name), ".")
	switch base {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(base) == 4 && (base[:3] == "com" || base[:3] == "lpt") && '1' <= base[3] && base[3] <= '9'
}
