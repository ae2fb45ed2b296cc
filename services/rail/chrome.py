"""Поезда's chrome (services/kit/chrome.py): a rail carrier's service bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="АО «Дальние и пригородные перевозки»",
    screen="bench_rail_info",
    columns=columns(
        (
            "Пассажирам",
            (
                ("rules", "Правила перевозки"),
                ("refunds", "Возврат билетов"),
                ("luggage", "Багаж и животные"),
                ("discounts", "Льготы и скидки"),
                ("accessible", "Маломобильным пассажирам"),
                ("timetable", "Расписание"),
            ),
        ),
        (
            "Билеты",
            (
                ("check-in", "Электронная регистрация"),
                ("bonus", "Бонусная программа"),
                ("business", "Корпоративным клиентам"),
                ("groups", "Групповые поездки"),
            ),
        ),
        (
            "Вокзалы",
            (
                ("station-maps", "Схемы вокзалов"),
                ("left-luggage", "Камеры хранения"),
                ("lounges", "Залы ожидания"),
            ),
        ),
        (
            "О компании",
            (
                ("news", "Новости"),
                ("jobs", "Вакансии"),
                ("press", "Пресс-центр"),
                ("documents", "Документы"),
                ("privacy", "Политика конфиденциальности"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-04-56, круглосуточно",
        "info@dalnie-perevozki.example",
        "Москва, Каланчёвская улица, 2",
    ),
    header=(
        Link("my-tickets", "Мои билеты"),
        Link("low-vision", "Версия для слабовидящих"),
        Link("help", "Помощь пассажиру"),
    ),
)
