package app;

import java.util.List;
import org.apache.commons.lang3.StringUtils;

public class Calc {
    public int add(int a, int b) {
        return a + b;
    }

    public int sum(List<Integer> xs) {
        int total = 0;
        for (int x : xs) {
            totl += x;
        }
        return total;
    }
}
