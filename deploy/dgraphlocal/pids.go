package dgraphlocal

// PIDs returns the process ids of the zero and the alpha (0 for one not started), so that a caller can
// watch them, e.g. read their peak memory from /proc/PID/status.
func (c *Cluster) PIDs() (zero, alpha int) {
	if c.zero != nil && c.zero.Process != nil {
		zero = c.zero.Process.Pid
	}
	if c.alpha != nil && c.alpha.Process != nil {
		alpha = c.alpha.Process.Pid
	}
	return zero, alpha
}
