import java.util.List;
import java.util.ArrayList;

public class Shop {
    public static int count(List<String> items) {
        String n = items.size();
        return 0;
    }
}
