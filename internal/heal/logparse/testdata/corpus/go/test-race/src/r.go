package r

func Count() int {
	n := 0
	done := make(chan bool)
	go func() {
		n++
		done <- true
	}()
	n++
	<-done
	return n
}
