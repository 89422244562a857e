package abi

// ValidID is the rule for the names the host's config gives and its calls
// carry: personalities, plugins, operators. Letters, digits, '_' and '-',
// at least one. One rule here, so the packages that check a name without
// importing the kernel (distribution, the console's config, the vault)
// agree with it.
func ValidID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
