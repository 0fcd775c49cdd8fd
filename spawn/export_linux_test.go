package spawn

// HelperArgs are the options a confined start of c gives its helper.
func HelperArgs(c *Cmd) ([]string, error) {
	cs, err := newConfinedStart(c)
	if err != nil || cs == nil {
		return nil, err
	}
	return cs.args, nil
}
