package api

func Handler() string {
	return 42
}
