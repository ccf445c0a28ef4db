public class Main {
    public static void main(String[] args) {
        String name = "x"
        System.out.println(name);
    }
}
