"""Отели's chrome (services/kit/chrome.py): a booking service's utility bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="ООО «Гостиничные системы»",
    screen="bench_hotel_info",
    columns=columns(
        (
            "Путешественникам",
            (
                ("how-to-book", "Как забронировать"),
                ("cancellation", "Отмена бронирования"),
                ("loyalty", "Программа лояльности"),
                ("gift-cards", "Подарочные сертификаты"),
                ("guide", "Путеводитель"),
            ),
        ),
        (
            "Партнёрам",
            (
                ("list-property", "Разместить объект"),
                ("extranet", "Экстранет для гостиниц"),
                ("affiliates", "Партнёрская программа"),
                ("agencies", "Турагентствам"),
            ),
        ),
        (
            "Компания",
            (
                ("about", "О нас"),
                ("jobs", "Вакансии"),
                ("press", "Пресс-центр"),
                ("blog", "Блог о путешествиях"),
            ),
        ),
        (
            "Документы",
            (
                ("privacy", "Политика конфиденциальности"),
                ("terms", "Условия использования"),
                ("cancellation-rules", "Правила отмены"),
                ("sitemap", "Карта сайта"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-05-67, круглосуточно",
        "support@gostinichnye-sistemy.example",
        "Москва, Ленинградский проспект, 39",
    ),
    header=(
        Link("language", "Язык: русский"),
        Link("currency", "Валюта: ₽ RUB"),
        Link("my-bookings", "Мои бронирования"),
        Link("help", "Помощь"),
    ),
)
