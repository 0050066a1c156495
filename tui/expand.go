package tui

// expand keeps dir's children current in the live tree until a matching
// collapse; the Tree counts its viewers, so pages that follow the same
// directory do not end each other's watches. Unit tests run pages
// without a Tree.
func (c *Context) expand(dir string) {
	if c.Tree != nil {
		c.Tree.Expand(dir)
	}
}

// collapse undoes one expand of dir.
func (c *Context) collapse(dir string) {
	if c.Tree != nil {
		c.Tree.Collapse(dir)
	}
}

// expandedBy reports how many viewers keep dir's children current.
func (c *Context) expandedBy(dir string) int {
	if c.Tree == nil {
		return 0
	}
	return c.Tree.Expanded(dir)
}
