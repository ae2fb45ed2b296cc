"""Книги's chrome (services/kit/chrome.py): a bookstore's utility bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="ООО «Книжный дом»",
    screen="bench_books_info",
    columns=columns(
        (
            "Покупателям",
            (
                ("how-to-buy", "Как купить книгу"),
                ("delivery", "Доставка и самовывоз"),
                ("bonus", "Бонусная программа"),
                ("gift-cards", "Подарочные карты"),
                ("returns", "Возврат и обмен"),
            ),
        ),
        (
            "Читателям",
            (
                ("journal", "Журнал о книгах"),
                ("prizes", "Литературные премии"),
                ("club", "Клуб читателей"),
                ("reviews", "Рецензии"),
                ("new", "Новинки месяца"),
            ),
        ),
        (
            "Издательствам",
            (
                ("publishers", "Сотрудничество"),
                ("manuscripts", "Предложить рукопись"),
                ("wholesale", "Оптовые закупки"),
                ("libraries", "Библиотекам и школам"),
            ),
        ),
        (
            "О магазине",
            (
                ("about", "О нас"),
                ("shops", "Магазины в городах"),
                ("jobs", "Вакансии"),
                ("privacy", "Политика конфиденциальности"),
                ("terms", "Правила продажи"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-02-34, ежедневно с 9 до 21",
        "zakaz@knizhny-dom.example",
        "Санкт-Петербург, Невский проспект, 28",
    ),
    header=(
        Link("shops", "Магазины в городах"),
        Link("bonus", "Бонусная программа"),
        Link("help", "Помощь покупателю"),
    ),
)
