package shop;

public class Order {
    private int count;

    public void add() {
        count = count + 1
    }
}
