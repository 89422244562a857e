package host

// newBrowser builds the browser service from the [browser] table. Until the
// browser service lands the host runs without one.
func (h *Host) newBrowser() (Service, error) { return nil, nil }
