public class Geo {
    static double area(double w, double h) { return w * h; }

    public static void main(String[] args) {
        System.out.println(area(2.0));
    }
}
