"""Файлы' chrome (services/kit/chrome.py): a document cabinet's utility bar and footer."""

from services.kit.chrome import Chrome, Link, columns

CHROME = Chrome(
    company="ООО «Документооборот»",
    screen="bench_files_info",
    columns=columns(
        (
            "Кабинет",
            (
                ("guide", "Справка по кабинету"),
                ("formats", "Форматы документов"),
                ("access", "Права доступа"),
                ("versions", "История версий"),
            ),
        ),
        (
            "Данные",
            (
                ("open-data", "Открытые данные"),
                ("methods", "Методики"),
                ("licenses", "Лицензии на данные"),
                ("request", "Запрос данных"),
            ),
        ),
        (
            "Организация",
            (
                ("about", "О лаборатории"),
                ("departments", "Контакты отделов"),
                ("jobs", "Вакансии"),
                ("news", "Новости"),
            ),
        ),
        (
            "Документы",
            (
                ("privacy", "Политика конфиденциальности"),
                ("terms", "Условия использования"),
                ("retention", "Политика хранения"),
                ("feedback", "Обратная связь"),
                ("sitemap", "Карта сайта"),
            ),
        ),
    ),
    contacts=(
        "8 800 555-06-78, по рабочим дням с 9 до 18",
        "cabinet@dokumentooborot.example",
        "Новосибирск, Красный проспект, 50",
    ),
    header=(
        Link("guide", "Справка по кабинету"),
        Link("notifications", "Уведомления: 3 новых"),
        Link("profile", "Профиль: Иванова А. С."),
    ),
)
