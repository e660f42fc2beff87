package tokens

// Estimate returns the approximate number of model tokens in n bytes of text:
// ceil(n / 4). It is the one estimator of the whole project, and the one the
// seed's figures use (2841 bytes → ~711 tokens).
func Estimate(n int) int {
	if n <= 0 {
		return 0
	}
	return (n + 3) / 4
}
