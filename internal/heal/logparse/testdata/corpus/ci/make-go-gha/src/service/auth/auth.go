package auth

func Allowed(role string) bool { return role == "admin" || role == "" }
