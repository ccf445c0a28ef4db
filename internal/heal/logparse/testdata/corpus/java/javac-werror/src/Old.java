import java.util.ArrayList;
import java.util.List;

public class Old {
    @SuppressWarnings("unused")
    private int x;

    public static void main(String[] args) {
        List raw = new ArrayList();
        raw.add("x");
        System.out.println(raw);
    }
}
