use super::*;

#[test]
fn the_plain_sql_path_agrees_with_the_full_parser() {
    let mut checked = 0;
    for year in [0i64, 1, 1969, 1970, 2000, 2020, 2021, 2100, 9999] {
        for (month, day) in [
            (1, 1),
            (2, 28),
            (2, 29),
            (2, 30),
            (4, 30),
            (4, 31),
            (12, 31),
        ] {
            for time in [
                "00:00:00",
                "23:59:59",
                "12:34:56.7",
                "12:34:56.123456789",
                "24:00:00",
                "12:60:00",
                "1:00:00",
            ] {
                let text = format!("{year:04}-{month:02}-{day:02} {time}");
                let fast = plain_sql_timestamp(text.as_bytes());
                let mut scan = Scan::new(&text);
                let full = (|| {
                    let date = scan.date().ok()?;
                    scan.literal(b' ', false).ok()?;
                    let time = scan.sql_time().ok()?;
                    scan.finish().ok()?;
                    resolve_date_time(date, time, Resolver::Smart).ok()
                })();
                if let Some(fast) = fast {
                    assert_eq!(Some(fast), full, "{text}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100);
}
