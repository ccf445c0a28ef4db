import java.util.ArrayList;
import java.util.List;

public class Stack {
    private final List<Integer> items = new ArrayList<>();

    int pop() {
        return items.remove(items.size() - 1);
    }

    public static void main(String[] args) {
        new Stack().pop();
    }
}
