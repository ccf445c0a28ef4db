package shop;

public class Cart {
    public int total(int price) {
        return price * qty + shipping;
    }
}
